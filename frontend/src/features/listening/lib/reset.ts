// The daily allowance resets at local midnight (Africa/Lagos); the
// dashboard counts down to it.

/** untilReset renders the time left until resetsAt as h:mm:ss (0:00:00 once passed). */
export function untilReset(resetsAt: string | Date, now: number = Date.now()): string {
  const ms = Math.max(0, new Date(resetsAt).getTime() - now)
  const s = Math.floor(ms / 1000)
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  return `${h}:${String(m).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`
}
