// How long a listen lasted. A stream is recorded once 30 s have been heard,
// with that listening as its duration; how much longer the listener went on
// is not recorded by the database yet. The fan dashboard's history is to
// carry it as `listened` (the whole listen, measured by the server): until
// it does, the recorded duration is what there is.

/** listenedSeconds is the whole listen when known, else the listening the stream was recorded with. */
export function listenedSeconds(h: { duration: number | null; listened?: number | null }): number {
  const whole = h.listened ?? null
  if (whole !== null && Number.isFinite(whole) && whole >= 0) return Math.max(whole, h.duration ?? 0)
  return Math.max(0, h.duration ?? 0)
}
