import { useEffect, useState } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { untilReset } from '../lib/reset'

/** Allowance shows today's remaining streams and counts down to the reset, then refetches. */
export function Allowance({ remaining, daily, resetsAt }: { remaining: number; daily: number; resetsAt: string }) {
  const qc = useQueryClient()
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const t = window.setInterval(() => setNow(Date.now()), 1000)
    return () => window.clearInterval(t)
  }, [])
  const passed = new Date(resetsAt).getTime() <= now
  useEffect(() => {
    if (passed) void qc.invalidateQueries({ queryKey: ['dailyStreamLimit'] })
  }, [passed, qc])
  return (
    <div className="rounded-xl border border-border bg-card p-4" data-testid="streams-remaining">
      <p className="text-sm text-muted-foreground">Streams left today</p>
      <p className="mt-1 text-2xl font-bold">
        {remaining} <span className="text-base font-normal text-muted-foreground">/ {daily}</span>
      </p>
      <p className="mt-1 text-xs text-muted-foreground">
        Resets in <span className="tabular-nums" data-testid="reset-countdown">{untilReset(resetsAt, now)}</span>
      </p>
    </div>
  )
}
