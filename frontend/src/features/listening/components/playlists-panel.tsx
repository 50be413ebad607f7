import { useState } from 'react'
import { Link } from 'react-router'
import { ArrowDown, ArrowUp, GripVertical, ListPlus, Pencil, Play, Trash2, X } from 'lucide-react'
import { toast } from 'sonner'
import { DownloadList } from '@/components/download-list'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Skeleton } from '@/components/ui/skeleton'
import { formatDuration } from '@/lib/format'
import { usePlayerStore } from '@/stores/player-store'
import type { Track } from '@/types/api'
import { moveItem, usePlaylistAction, usePlaylists, type Playlist } from '@/lib/playlists'

function PlaylistCard({ userId, list, addable }: { userId: string; list: Playlist; addable: Track[] }) {
  const act = usePlaylistAction(userId)
  const playQueue = usePlayerStore((s) => s.playQueue)
  const [renaming, setRenaming] = useState<string | null>(null)
  const [dragging, setDragging] = useState<number | null>(null)
  const [adding, setAdding] = useState('')
  const fail = (e: Error) => toast.error('Playlist not changed', { description: e.message })
  const reorder = (from: number, to: number) => {
    const ids = moveItem(list.tracks, from, to).map((t) => t.id)
    act.mutate({ kind: 'reorder', playlistId: list.id, trackIds: ids }, { onError: fail })
  }
  const candidates = addable.filter((t) => !list.tracks.some((x) => x.id === t.id))
  return (
    <section className="rounded-xl border border-border bg-card p-3" data-testid="playlist" aria-label={list.name}>
      <div className="flex flex-wrap items-center gap-2">
        {renaming === null ? (
          <h3 className="min-w-0 flex-1 truncate font-semibold">
            <Link to={`/playlists/${list.id}`} className="hover:underline">
              {list.name}
            </Link>
          </h3>
        ) : (
          <form
            className="flex flex-1 gap-2"
            onSubmit={(e) => {
              e.preventDefault()
              act.mutate({ kind: 'rename', id: list.id, name: renaming }, { onError: fail, onSuccess: () => setRenaming(null) })
            }}
          >
            <Input aria-label="Playlist name" value={renaming} maxLength={100} onChange={(e) => setRenaming(e.target.value)} className="h-8" autoFocus />
            <Button size="sm" type="submit" disabled={!renaming.trim()}>
              Save
            </Button>
          </form>
        )}
        <Button size="sm" disabled={list.tracks.length === 0} onClick={() => playQueue(list.tracks, 0)}>
          <Play /> Play all
        </Button>
        <DownloadList name={list.name} tracks={list.tracks} />
        <Button size="icon" variant="ghost" aria-label={`Rename ${list.name}`} onClick={() => setRenaming(renaming === null ? list.name : null)}>
          <Pencil />
        </Button>
        <Button size="icon" variant="ghost" aria-label={`Delete ${list.name}`} onClick={() => act.mutate({ kind: 'delete', id: list.id }, { onError: fail })}>
          <Trash2 />
        </Button>
      </div>
      <ol className="mt-2 grid grid-cols-1 gap-1">
        {list.tracks.map((t, i) => (
          <li
            key={t.id}
            draggable
            onDragStart={(e) => {
              setDragging(i)
              e.dataTransfer.effectAllowed = 'move'
            }}
            onDragOver={(e) => e.preventDefault()}
            onDrop={(e) => {
              e.preventDefault()
              if (dragging !== null) reorder(dragging, i)
              setDragging(null)
            }}
            onDragEnd={() => setDragging(null)}
            className={`flex items-center gap-2 rounded-md p-1.5 text-sm ${dragging === i ? 'opacity-50' : ''}`}
            data-testid="playlist-track"
          >
            <GripVertical className="size-4 shrink-0 cursor-grab text-muted-foreground" aria-hidden />
            <button type="button" className="min-w-0 flex-1 truncate text-left hover:underline" onClick={() => playQueue(list.tracks, i)}>
              {t.title} <span className="text-muted-foreground">· {t.artist}</span>
            </button>
            <span className="text-xs text-muted-foreground">{formatDuration(t.duration)}</span>
            {/* Keyboard and touch alternatives to dragging. */}
            <Button size="icon" variant="ghost" className="size-7" aria-label={`Move ${t.title} up`} disabled={i === 0} onClick={() => reorder(i, i - 1)}>
              <ArrowUp />
            </Button>
            <Button size="icon" variant="ghost" className="size-7" aria-label={`Move ${t.title} down`} disabled={i === list.tracks.length - 1} onClick={() => reorder(i, i + 1)}>
              <ArrowDown />
            </Button>
            <Button
              size="icon"
              variant="ghost"
              className="size-7"
              aria-label={`Remove ${t.title}`}
              onClick={() => act.mutate({ kind: 'removeTrack', playlistId: list.id, trackId: t.id }, { onError: fail })}
            >
              <X />
            </Button>
          </li>
        ))}
      </ol>
      {candidates.length > 0 && (
        <div className="mt-2 flex gap-2">
          <select aria-label={`Add a track to ${list.name}`} className="h-8 min-w-0 flex-1 rounded-md border border-border bg-background px-2 text-sm" value={adding} onChange={(e) => setAdding(e.target.value)}>
            <option value="">Add a liked track…</option>
            {candidates.map((t) => (
              <option key={t.id} value={t.id}>
                {t.title} · {t.artist}
              </option>
            ))}
          </select>
          <Button
            size="sm"
            variant="outline"
            disabled={!adding}
            onClick={() => act.mutate({ kind: 'add', playlistId: list.id, trackId: adding }, { onError: fail, onSuccess: () => setAdding('') })}
          >
            <ListPlus /> Add
          </Button>
        </div>
      )}
    </section>
  )
}

/** PlaylistsPanel lists the fan's playlists and creates new ones; tracks are added from the fan's likes. */
export function PlaylistsPanel({ userId, liked }: { userId: string; liked: Track[] }) {
  const { data = [], isLoading } = usePlaylists(userId)
  const act = usePlaylistAction(userId)
  const [name, setName] = useState('')
  return (
    <div className="grid grid-cols-1 gap-3">
      <form
        className="flex gap-2"
        onSubmit={(e) => {
          e.preventDefault()
          act.mutate({ kind: 'create', name }, { onSuccess: () => setName(''), onError: (err) => toast.error('Could not create the playlist', { description: err.message }) })
        }}
      >
        <Input aria-label="New playlist name" placeholder="New playlist name" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} className="max-w-xs" />
        <Button type="submit" disabled={!name.trim() || act.isPending}>
          Create playlist
        </Button>
      </form>
      {isLoading && <Skeleton className="h-24" />}
      {!isLoading && data.length === 0 && <p className="text-sm text-muted-foreground">No playlists yet.</p>}
      <div className="grid grid-cols-1 gap-3 lg:grid-cols-2">
        {data.map((l) => (
          <PlaylistCard key={l.id} userId={userId} list={l} addable={liked} />
        ))}
      </div>
    </div>
  )
}
