import { CheckCircle2, RotateCcw, XCircle } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { SafeImage } from '@/components/safe-image'
import { formatDuration } from '@/lib/format'
import { usePlayerStore } from '@/stores/player-store'
import type { Track } from '@/types/api'
import { listenedSeconds } from '../lib/history'

/** HistoryEntry is one stream with the server's verdict. */
export interface HistoryEntry {
  id: string
  track_id: string
  title: string
  artist_name: string
  created_at: string
  /** duration is the listening the stream was recorded with. */
  duration: number | null
  /** listened is the whole listen, when the server knows it (see lib/history.ts). */
  listened?: number | null
  cover_url?: string | null
  is_valid: boolean
  invalid_reason: string | null
}

/** replay plays a track from its start: the current one starts over, another one becomes current. */
function replay(track: Track) {
  const s = usePlayerStore.getState()
  if (s.currentTrack?.id === track.id) {
    s.seek(0)
    s.setPlaying(true)
  } else s.playTrack(track)
}

/**
 * ListeningHistory lists streams with their cover, how long they were
 * listened to, the verdict (counted, or not with the stored reason) and a
 * replay button; `tracks` are the listed tracks as the player plays them.
 */
export function ListeningHistory({ items, tracks }: { items: HistoryEntry[]; tracks: Map<string, Track> }) {
  if (items.length === 0) return <p className="rounded-xl border border-border p-6 text-center text-muted-foreground">No streams yet. Listen for 30 seconds to count a stream.</p>
  return (
    <ul className="grid grid-cols-1 gap-2" data-testid="history">
      {items.map((h) => {
        const track = tracks.get(h.track_id)
        return (
          <li key={h.id} className="flex min-w-0 items-center gap-3 rounded-xl border border-border bg-card p-2 pr-3" data-testid="history-item">
            <SafeImage src={h.cover_url ?? track?.coverUrl} alt="" size={48} className="size-12 shrink-0 rounded-md object-cover" />
            <div className="min-w-0 flex-1">
              <p className="truncate font-medium">
                {h.title} <span className="text-muted-foreground">· {h.artist_name}</span>
              </p>
              <p className="flex flex-wrap items-center gap-x-1.5 text-xs text-muted-foreground">
                {h.is_valid ? <CheckCircle2 className="size-3.5 shrink-0 text-green-400" /> : <XCircle className="size-3.5 shrink-0 text-red-400" />}
                <span>{h.is_valid ? 'Counted' : `Not counted: ${h.invalid_reason ?? 'no reason given'}`}</span>
                <span>· listened {formatDuration(listenedSeconds(h))}</span>
                <span>· {new Date(h.created_at).toLocaleString('en-NG')}</span>
              </p>
            </div>
            <Button size="icon" variant="ghost" className="shrink-0" aria-label={`Play ${h.title} again`} disabled={!track} onClick={() => track && replay(track)}>
              <RotateCcw />
            </Button>
          </li>
        )
      })}
    </ul>
  )
}
