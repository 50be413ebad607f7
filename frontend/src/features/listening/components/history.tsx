import { CheckCircle2, XCircle } from 'lucide-react'
import { formatDuration } from '@/lib/format'

/** HistoryEntry is one stream with the server's verdict. */
export interface HistoryEntry {
  id: string
  title: string
  artist_name: string
  created_at: string
  duration: number | null
  is_valid: boolean
  invalid_reason: string | null
}

/** ListeningHistory lists streams: counted, or not with the stored reason. */
export function ListeningHistory({ items }: { items: HistoryEntry[] }) {
  if (items.length === 0) return <p className="rounded-xl border border-border p-6 text-center text-muted-foreground">No streams yet. Listen for 30 seconds to count a stream.</p>
  return (
    <ul className="grid grid-cols-1 gap-2" data-testid="history">
      {items.map((h) => (
        <li key={h.id} className="flex items-start gap-3 rounded-xl border border-border bg-card p-3" data-testid="history-item">
          {h.is_valid ? <CheckCircle2 className="mt-0.5 size-5 shrink-0 text-green-400" /> : <XCircle className="mt-0.5 size-5 shrink-0 text-red-400" />}
          <div className="min-w-0 flex-1">
            <p className="truncate font-medium">
              {h.title} <span className="text-muted-foreground">· {h.artist_name}</span>
            </p>
            <p className="text-xs text-muted-foreground">
              {new Date(h.created_at).toLocaleString('en-NG')} · {formatDuration(h.duration ?? 0)} · {h.is_valid ? 'Counted' : `Not counted: ${h.invalid_reason ?? 'no reason given'}`}
            </p>
          </div>
        </li>
      ))}
    </ul>
  )
}
