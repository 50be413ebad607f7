// How long a listen lasted. A stream is recorded once 30 s have been heard,
// with that listening as its duration; the player reports how much longer
// the listener went on (record_listen, capped by the server's clock) and the
// fan dashboard's history carries the whole listen as `listened`. A row
// without it (a play never reported) has the recorded duration.

/** listenedSeconds is the whole listen when known, else the listening the stream was recorded with. */
export function listenedSeconds(h: { duration: number | null; listened?: number | null }): number {
  const whole = h.listened ?? null
  if (whole !== null && Number.isFinite(whole) && whole >= 0) return Math.max(whole, h.duration ?? 0)
  return Math.max(0, h.duration ?? 0)
}
