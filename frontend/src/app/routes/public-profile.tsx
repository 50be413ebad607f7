import { useParams } from 'react-router'
import { useQuery } from '@tanstack/react-query'
import { BadgeCheck, Globe, MapPin } from 'lucide-react'
import { Avatar, AvatarFallback, AvatarImage } from '@/components/ui/avatar'
import { Skeleton } from '@/components/ui/skeleton'
import { roleBadgeClass } from '@/config/nav'
import { useOnlineUsers } from '@/hooks/use-online-users'
import { abbreviateNumber } from '@/lib/format'
import { cn } from '@/lib/utils'
import { getArtistProfile, getSponsorProfile, useProfile } from '@/features/profiles/api/get-profiles'
import { getTracks } from '@/features/tracks/api/get-tracks'
import { TrackCard } from '@/features/tracks/components/track-card'
import { FollowButton } from '@/features/discovery/components/follow-button'
import { ShareButton } from '@/components/share-button'
import NotFoundPage from './not-found'

/** PublicProfilePage is /profiles/{username} and /profile/{id}. */
export default function PublicProfilePage() {
  const { username, id } = useParams()
  const { data: p, isLoading } = useProfile({ username, id })
  const online = useOnlineUsers()
  const role = p?.role
  const artist = useQuery({ queryKey: ['artistProfile', p?.id], queryFn: () => getArtistProfile(p!.id), enabled: role === 'artist', staleTime: 2 * 60_000 })
  const sponsor = useQuery({ queryKey: ['sponsorProfile', p?.id], queryFn: () => getSponsorProfile(p!.id), enabled: role === 'sponsor', staleTime: 5 * 60_000 })
  const tracks = useQuery({
    queryKey: ['artistTracks', p?.id, role],
    enabled: role === 'artist' || role === 'sponsor',
    queryFn: () => getTracks(role === 'artist' ? { artistId: p!.id, limit: 24 } : { sponsorId: p!.id, limit: 24 }),
  })
  if (isLoading) return <Skeleton className="h-64" />
  if (!p) return <NotFoundPage />
  const name = (role === 'sponsor' && sponsor.data?.company_name) || p.display_name || p.username || 'User'
  return (
    <div>
      <div className="flex flex-col items-center gap-4 rounded-3xl border border-border bg-card p-6 text-center md:flex-row md:text-left">
        <div className="relative">
          <Avatar className="size-28">
            <AvatarImage src={p.avatar_url ?? undefined} alt={name} size={112} />
            <AvatarFallback name={name} className="text-3xl" />
          </Avatar>
          {online.has(p.id) && <span className="absolute bottom-1 right-1 size-4 rounded-full border-2 border-card bg-green-500" aria-label="Online" />}
        </div>
        <div className="flex-1">
          <h1 className="flex items-center justify-center gap-2 text-3xl font-bold md:justify-start">
            {name} {p.is_verified && <BadgeCheck className="size-6 text-sky-400" aria-label="Verified" />}
          </h1>
          <div className="mt-1 flex flex-wrap items-center justify-center gap-3 text-sm text-muted-foreground md:justify-start">
            {p.username && <span>@{p.username}</span>}
            {role && <span className={cn('rounded-full px-2 py-0.5 text-[10px] font-semibold uppercase', roleBadgeClass[role])}>{role}</span>}
            {p.location && (
              <span className="flex items-center gap-1">
                <MapPin className="size-3" /> {p.location}
              </span>
            )}
            {p.website && (
              <a href={p.website} target="_blank" rel="noreferrer noopener" className="flex items-center gap-1 hover:text-foreground">
                <Globe className="size-3" /> {p.website.replace(/^https?:\/\//, '')}
              </a>
            )}
          </div>
          {p.bio && <p className="mt-3 max-w-2xl">{p.bio}</p>}
          {role === 'artist' && artist.data && (
            <p className="mt-3 text-sm text-muted-foreground">
              {abbreviateNumber(artist.data.track_count ?? 0)} tracks · {abbreviateNumber(artist.data.stream_count ?? 0)} streams ·{' '}
              <span data-testid="follower-count">{abbreviateNumber(artist.data.follower_count ?? 0)}</span> followers
            </p>
          )}
        </div>
        <div className="flex flex-wrap justify-center gap-2">
          {role === 'artist' && <FollowButton artistId={p.id} />}
          <ShareButton withLabel target={{ title: name, text: `${name} on Backline`, path: p.username ? `/profiles/${p.username}` : `/profile/${p.id}` }} />
        </div>
      </div>
      {(role === 'artist' || role === 'sponsor') && (
        <section className="mt-8">
          <h2 className="mb-4 text-xl font-bold">{role === 'artist' ? 'Tracks' : 'Sponsored tracks'}</h2>
          {(tracks.data ?? []).length === 0 ? (
            <p className="text-muted-foreground">No tracks available</p>
          ) : (
            <div className="grid grid-cols-2 gap-4 md:grid-cols-4 lg:grid-cols-6">
              {tracks.data!.map((t) => (
                <TrackCard key={t.id} track={t} list={tracks.data} />
              ))}
            </div>
          )}
        </section>
      )}
    </div>
  )
}
