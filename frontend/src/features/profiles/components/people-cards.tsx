import { Link } from 'react-router'
import { BadgeCheck, ShieldCheck } from 'lucide-react'
import { Avatar, AvatarFallback, AvatarImage } from '@/components/ui/avatar'
import { Button } from '@/components/ui/button'
import { abbreviateNumber } from '@/lib/format'
import { hasValidKyc } from '@/types/api'
import type { ArtistSummary, FanSummary } from '../api/get-profiles'

function OnlineDot({ online }: { online: boolean }) {
  if (!online) return null
  return <span className="absolute bottom-0 right-0 size-3 rounded-full border-2 border-card bg-green-500" aria-label="Online" title="Online" />
}

const profileHref = (p: { username: string | null; id: string }) => (p.username ? `/profiles/${p.username}` : `/profile/${p.id}`)

/** ArtistCard: avatar, verified and KYC badges, online dot, location or bio, counts and a View Profile link. */
export function ArtistCard({ artist, online }: { artist: ArtistSummary; online: boolean }) {
  const name = artist.display_name || artist.name || 'Unknown Artist'
  return (
    <div className="flex min-w-0 flex-col items-center gap-2 rounded-xl border border-border bg-card p-4 text-center" data-testid="artist-card">
      <div className="relative">
        <Avatar className="size-20">
          <AvatarImage src={artist.avatar_url ?? undefined} alt={name} size={80} />
          <AvatarFallback name={name} className="text-xl" />
        </Avatar>
        <OnlineDot online={online} />
      </div>
      <div className="flex max-w-full min-w-0 items-center gap-1 font-semibold">
        <span className="truncate">{name}</span>
        {artist.is_verified && <BadgeCheck className="size-4 shrink-0 text-sky-400" aria-label="Verified" />}
        {hasValidKyc(artist) && <ShieldCheck className="size-4 shrink-0 text-green-400" aria-label="KYC verified" />}
      </div>
      <p className="line-clamp-2 min-h-8 text-xs text-muted-foreground">{artist.location || artist.bio || ' '}</p>
      <p className="text-xs text-muted-foreground">
        {abbreviateNumber(artist.track_count ?? 0)} tracks · {abbreviateNumber(artist.stream_count ?? 0)} streams
      </p>
      <Button asChild variant="outline" size="sm">
        <Link to={profileHref(artist)}>View Profile</Link>
      </Button>
    </div>
  )
}

/** FanCard: avatar, display name, @username, stream count and online dot. */
export function FanCard({ fan, online }: { fan: FanSummary; online: boolean }) {
  const name = fan.display_name || fan.username || 'Fan'
  return (
    <Link to={profileHref(fan)} className="flex min-w-0 items-center gap-3 rounded-xl border border-border bg-card p-3" data-testid="fan-card">
      <div className="relative">
        <Avatar className="size-12">
          <AvatarImage src={fan.avatar_url ?? undefined} alt={name} size={48} />
          <AvatarFallback name={name} />
        </Avatar>
        <OnlineDot online={online} />
      </div>
      <div className="min-w-0">
        <p className="truncate font-semibold">{name}</p>
        {fan.username && <p className="truncate text-xs text-muted-foreground">@{fan.username}</p>}
        <p className="text-xs text-muted-foreground">{abbreviateNumber(fan.streamCount)} streams</p>
      </div>
    </Link>
  )
}
