/** Remaining is a countdown split into units. */
export interface Remaining {
  days: number
  hours: number
  minutes: number
  seconds: number
  done: boolean
}

/** remaining splits the time until target; an invalid or past date is done. */
export function remaining(target: string, now = Date.now()): Remaining {
  const t = new Date(target).getTime()
  const ms = Number.isFinite(t) ? Math.max(0, t - now) : 0
  const s = Math.floor(ms / 1000)
  return { days: Math.floor(s / 86400), hours: Math.floor((s % 86400) / 3600), minutes: Math.floor((s % 3600) / 60), seconds: s % 60, done: ms === 0 }
}
