import * as React from 'react'
import { cn } from '@/lib/utils'

/** Card is a bordered panel. */
export function Card({ className, ...props }: React.ComponentProps<'div'>) {
  return <div className={cn('rounded-lg border border-border bg-card p-4', className)} {...props} />
}

/** Badge is a small label. */
export function Badge({ className, tone = 'muted', ...props }: React.ComponentProps<'span'> & { tone?: 'muted' | 'ok' | 'bad' | 'warn' }) {
  const tones = {
    muted: 'bg-muted text-muted-foreground',
    ok: 'bg-primary/15 text-primary',
    bad: 'bg-destructive/15 text-destructive',
    warn: 'bg-warning/15 text-warning',
  }
  return <span className={cn('inline-flex items-center rounded px-1.5 py-0.5 text-[11px] font-medium', tones[tone], className)} {...props} />
}

/** ErrorText shows a server's message, preformatted when it has lines. */
export function ErrorText({ error, className }: { error: unknown; className?: string }) {
  if (!error) return null
  const text = error instanceof Error ? error.message : String(error)
  return (
    <pre role="alert" className={cn('whitespace-pre-wrap rounded-md border border-destructive/40 bg-destructive/10 p-2 font-mono text-xs text-destructive', className)}>
      {text}
    </pre>
  )
}

/** Tabs is a row of buttons choosing a panel. */
export function Tabs<T extends string>({ value, onChange, items }: { value: T; onChange: (v: T) => void; items: { value: T; label: string }[] }) {
  return (
    <div role="tablist" className="flex gap-1 border-b border-border">
      {items.map((it) => (
        <button
          key={it.value}
          role="tab"
          aria-selected={value === it.value}
          onClick={() => onChange(it.value)}
          className={cn('-mb-px border-b-2 px-3 py-1.5 text-sm', value === it.value ? 'border-primary text-foreground' : 'border-transparent text-muted-foreground hover:text-foreground')}
        >
          {it.label}
        </button>
      ))}
    </div>
  )
}
