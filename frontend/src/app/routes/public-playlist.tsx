import { Link, useParams } from 'react-router'
import { Globe, Heart, ImageUp, ListMusic, Lock, Play } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { SafeImage } from '@/components/safe-image'
import { Skeleton } from '@/components/ui/skeleton'
import { useAuthStore } from '@/lib/auth'
import { usePlayerStore } from '@/stores/player-store'
import { usePlaylistPage, useUpdatePlaylist } from '@/features/discovery/api/discovery'
import { uploadCover } from '@/features/studio/api/tracks'
import { ShareButton } from '@/components/share-button'
import { TrackCard } from '@/features/tracks/components/track-card'
import NotFoundPage from './not-found'

/** PlaylistPagePublic is /playlists/{id} (a shared playlist) and /playlists/liked (the caller's Liked songs). */
export default function PublicPlaylistPage() {
  const { id = '' } = useParams()
  const liked = id === 'liked'
  const userId = useAuthStore((s) => s.user?.id)
  const { data, isLoading } = usePlaylistPage(liked ? null : id)
  const update = useUpdatePlaylist()
  const playTrack = usePlayerStore((s) => s.playTrack)
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
        <div className="flex-1">
          <p className="text-xs uppercase text-muted-foreground">{playlist.is_public ? 'Public playlist' : 'Playlist'}</p>
          <h1 className="text-3xl font-bold">{playlist.name}</h1>
          {playlist.description && <p className="mt-1">{playlist.description}</p>}
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
