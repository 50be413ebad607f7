import { useShallow } from 'zustand/react/shallow'
import { usePlayerStore } from '@/stores/player-store'

/** UP_NEXT_SHOWN is how many queued tracks the expanded player lists. */
export const UP_NEXT_SHOWN = 5

/** UpNext lists what the queue plays after the current track; pressing one plays it. */
export function UpNext() {
  const next = usePlayerStore(useShallow((s) => s.queue.slice(s.index + 1, s.index + 1 + UP_NEXT_SHOWN)))
  const more = usePlayerStore((s) => Math.max(s.queue.length - s.index - 1 - UP_NEXT_SHOWN, 0))
  if (next.length === 0) return null
  return (
    <section aria-label="Up next" className="w-full max-w-sm">
      <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-muted-foreground">Up next</h3>
      <ol className="grid grid-cols-1 gap-1" data-testid="up-next">
        {next.map((t) => (
          <li key={t.id}>
            <button type="button" className="w-full truncate rounded px-2 py-1 text-left text-sm hover:bg-accent" onClick={() => usePlayerStore.getState().playTrack(t)}>
              {t.title} <span className="text-muted-foreground">· {t.artist}</span>
            </button>
          </li>
        ))}
      </ol>
      {more > 0 && <p className="px-2 text-xs text-muted-foreground">and {more} more</p>}
    </section>
  )
}
