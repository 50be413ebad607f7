import { useState } from 'react'
import { Link, useParams } from 'react-router'
import { Globe, Heart, ImageUp, ListMusic, Lock, Pencil, Play } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { SafeImage } from '@/components/safe-image'
import { Skeleton } from '@/components/ui/skeleton'
import { Textarea } from '@/components/ui/textarea'
import { useAuthStore } from '@/lib/auth'
import { usePlayerStore } from '@/stores/player-store'
import { usePlaylistPage, useUpdatePlaylist } from '@/features/discovery/api/discovery'
import { uploadCover } from '@/features/studio/api/tracks'
import { ShareButton } from '@/components/share-button'
import { TrackCard } from '@/features/tracks/components/track-card'
import NotFoundPage from './not-found'

/** DESCRIPTION_MAX is the longest description the database keeps (sql/app 0032). */
const DESCRIPTION_MAX = 500

/** DescriptionEditor lets the owner write or change a playlist's description. */
function DescriptionEditor({ id, description, onDone }: { id: string; description: string | null; onDone: () => void }) {
  const [text, setText] = useState(description ?? '')
  const update = useUpdatePlaylist()
  const save = () =>
    update.mutate(
      { id, description: text.trim() || null },
      {
        onSuccess: () => {
          toast.success('Description saved')
          onDone()
        },
        onError: (e) => toast.error(e instanceof Error ? e.message : 'Could not change the playlist'),
      },
    )
  return (
    <div className="mt-2 flex w-full flex-col gap-2" data-testid="playlist-description-editor">
      <Textarea aria-label="Playlist description" value={text} maxLength={DESCRIPTION_MAX} rows={3} onChange={(e) => setText(e.target.value)} />
      <div className="flex flex-wrap items-center justify-center gap-2 md:justify-start">
        <Button size="sm" disabled={update.isPending} onClick={save}>
          Save description
        </Button>
        <Button size="sm" variant="ghost" onClick={onDone}>
          Cancel
        </Button>
        <span className="text-xs text-muted-foreground">
          {text.length}/{DESCRIPTION_MAX}
        </span>
      </div>
    </div>
  )
}

/** PlaylistPagePublic is /playlists/{id} (a shared playlist) and /playlists/liked (the caller's Liked songs). */
export default function PublicPlaylistPage() {
  const { id = '' } = useParams()
  const liked = id === 'liked'
  const userId = useAuthStore((s) => s.user?.id)
  const { data, isLoading } = usePlaylistPage(liked ? null : id)
  const update = useUpdatePlaylist()
  const playTrack = usePlayerStore((s) => s.playTrack)
  const [editing, setEditing] = useState(false)
  const fail = (e: unknown) => toast.error(e instanceof Error ? e.message : 'Could not change the playlist')
  if (isLoading) return <Skeleton className="h-64" />
  if (!data) return <NotFoundPage />
  const { playlist, tracks } = data
  const own = playlist.owner_id === userId
  return (
    <div>
      <div className="flex flex-col items-center gap-4 rounded-3xl border border-border bg-card p-6 text-center md:flex-row md:text-left">
        {playlist.cover_url ? (
          <SafeImage src={playlist.cover_url} alt={`${playlist.name} cover`} className="size-32 rounded-xl object-cover" size={128} loading="eager" />
        ) : (
          <span className="flex size-32 items-center justify-center rounded-xl bg-muted">
            {liked ? <Heart className="size-10 text-pink-500" /> : <ListMusic className="size-10" />}
          </span>
        )}
        <div className="min-w-0 flex-1">
          <p className="text-xs uppercase text-muted-foreground">{playlist.is_public ? 'Public playlist' : 'Playlist'}</p>
          <h1 className="text-3xl font-bold">{playlist.name}</h1>
          {editing && playlist.id ? (
            <DescriptionEditor id={playlist.id} description={playlist.description} onDone={() => setEditing(false)} />
          ) : (
            playlist.description && <p className="mt-1 break-words">{playlist.description}</p>
          )}
          <p className="mt-1 text-sm text-muted-foreground">
            {playlist.owner_username ? <Link to={`/profiles/${playlist.owner_username}`}>{playlist.owner_name}</Link> : playlist.owner_name} · {tracks.length} tracks
          </p>
        </div>
        <div className="flex flex-wrap justify-center gap-2">
          {tracks.length > 0 && (
            <Button onClick={() => playTrack(tracks[0])}>
              <Play /> Play
            </Button>
          )}
          {own && playlist.id && (
            <>
              <Button
                variant="outline"
                disabled={update.isPending}
                onClick={() => update.mutate({ id: playlist.id!, is_public: !playlist.is_public }, { onError: fail })}
              >
                {playlist.is_public ? <Lock /> : <Globe />} {playlist.is_public ? 'Make private' : 'Make public'}
              </Button>
              {!editing && (
                <Button variant="outline" onClick={() => setEditing(true)}>
                  <Pencil /> {playlist.description ? 'Edit description' : 'Add description'}
                </Button>
              )}
              <Button asChild variant="outline">
                <label className="cursor-pointer">
                  <ImageUp /> Cover
                  <input
                    type="file"
                    accept="image/jpeg,image/png,image/webp"
                    aria-label="Playlist cover file"
                    className="sr-only"
                    onChange={async (e) => {
                      const file = e.target.files?.[0]
                      if (!file || !userId) return
                      try {
                        const url = await uploadCover(userId, file)
                        update.mutate({ id: playlist.id!, cover_url: url }, { onError: fail })
                      } catch (err) {
                        fail(err)
                      }
                    }}
                  />
                </label>
              </Button>
            </>
          )}
          {playlist.is_public && playlist.id && <ShareButton withLabel target={{ title: playlist.name, text: `${playlist.name} on Backline`, path: `/playlists/${playlist.id}` }} />}
        </div>
      </div>
      <div className="mt-6 grid grid-cols-2 gap-4 md:grid-cols-4 lg:grid-cols-6">
        {tracks.map((t) => (
          <TrackCard key={t.id} track={t} list={tracks} />
        ))}
      </div>
      {tracks.length === 0 && <p className="mt-6 text-muted-foreground">No tracks in this playlist yet.</p>}
    </div>
  )
}
