import { useRef, useState, type PointerEvent } from 'react'
import { ChevronDown, ChevronUp, GripVertical, X } from 'lucide-react'
import { useShallow } from 'zustand/react/shallow'
import { Button } from '@/components/ui/button'
import { cn } from '@/lib/utils'
import { usePlayerStore } from '@/stores/player-store'

/** UP_NEXT_SHOWN is how many queued tracks the expanded player lists before "and N more". */
export const UP_NEXT_SHOWN = 50

/**
 * UpNext is the queue editor: what plays after the current track. Pressing a
 * title plays it; a row is dragged by its handle (mouse, pen or touch) or
 * moved with its Move up and Move down buttons, and removed with Remove.
 */
export function UpNext() {
  const start = usePlayerStore((s) => s.index + 1)
  const next = usePlayerStore(useShallow((s) => s.queue.slice(s.index + 1, s.index + 1 + UP_NEXT_SHOWN)))
  const more = usePlayerStore((s) => Math.max(s.queue.length - s.index - 1 - UP_NEXT_SHOWN, 0))
  const list = useRef<HTMLOListElement>(null)
  // dragging: the row held by its handle, and the row it would drop on.
  const [drag, setDrag] = useState<{ from: number; over: number } | null>(null)
  if (next.length === 0) return null
  const { moveInQueue, removeFromQueue, playTrack } = usePlayerStore.getState()

  // The row under the pointer, by its data-row; null outside the list.
  const rowAt = (e: PointerEvent) => {
    const el = document.elementFromPoint(e.clientX, e.clientY)?.closest<HTMLElement>('[data-row]')
    return el && list.current?.contains(el) ? Number(el.dataset.row) : null
  }
  const onDown = (i: number) => (e: PointerEvent<HTMLButtonElement>) => {
    e.currentTarget.setPointerCapture(e.pointerId)
    setDrag({ from: i, over: i })
  }
  const onMove = (e: PointerEvent) => {
    if (!drag) return
    const over = rowAt(e)
    if (over !== null && over !== drag.over) setDrag({ ...drag, over })
  }
  const onUp = () => {
    if (drag && drag.over !== drag.from) moveInQueue(start + drag.from, start + drag.over)
    setDrag(null)
  }

  return (
    <section aria-label="Up next" className="w-full max-w-sm">
      <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-muted-foreground">Up next</h3>
      <ol ref={list} className="grid max-h-64 grid-cols-1 gap-1 overflow-y-auto" data-testid="up-next">
        {next.map((t, i) => (
          <li
            key={t.id}
            data-row={i}
            className={cn('flex min-w-0 items-center gap-0.5 rounded', drag?.over === i && drag.from !== i && 'bg-accent', drag?.from === i && 'opacity-60')}
          >
            <button
              type="button"
              aria-label={`Drag ${t.title}`}
              className="flex size-8 shrink-0 cursor-grab touch-none items-center justify-center text-muted-foreground active:cursor-grabbing"
              onPointerDown={onDown(i)}
              onPointerMove={onMove}
              onPointerUp={onUp}
              onPointerCancel={() => setDrag(null)}
            >
              <GripVertical className="size-4" />
            </button>
            <button type="button" className="min-w-0 flex-1 truncate rounded px-1 py-1 text-left text-sm hover:bg-accent" onClick={() => playTrack(t)}>
              {t.title} <span className="text-muted-foreground">· {t.artist}</span>
            </button>
            <Button variant="ghost" size="icon" className="size-8 shrink-0" aria-label={`Move ${t.title} up`} disabled={i === 0} onClick={() => moveInQueue(start + i, start + i - 1)}>
              <ChevronUp />
            </Button>
            <Button
              variant="ghost"
              size="icon"
              className="size-8 shrink-0"
              aria-label={`Move ${t.title} down`}
              disabled={i === next.length - 1 && more === 0}
              onClick={() => moveInQueue(start + i, start + i + 1)}
            >
              <ChevronDown />
            </Button>
            <Button variant="ghost" size="icon" className="size-8 shrink-0" aria-label={`Remove ${t.title} from the queue`} onClick={() => removeFromQueue(t.id)}>
              <X />
            </Button>
          </li>
        ))}
      </ol>
      {more > 0 && <p className="px-2 text-xs text-muted-foreground">and {more} more</p>}
    </section>
  )
}
