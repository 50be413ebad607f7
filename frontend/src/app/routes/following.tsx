import { Link } from 'react-router'
import { Avatar, AvatarFallback, AvatarImage } from '@/components/ui/avatar'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { useAuthStore } from '@/lib/auth'
import { abbreviateNumber } from '@/lib/format'
import { useFollowing } from '@/features/discovery/api/discovery'
import { FollowButton } from '@/features/discovery/components/follow-button'

/** FollowingPage lists the artists the user follows. */
export default function FollowingPage() {
  const userId = useAuthStore((s) => s.user?.id)
  const { data = [], isLoading } = useFollowing(userId)
  return (
    <div>
      <h1 className="text-3xl font-bold">Following</h1>
      {isLoading ? (
        <Skeleton className="mt-6 h-40" />
      ) : data.length === 0 ? (
        <div className="grid justify-items-center gap-3 py-16 text-center text-muted-foreground">
          <p>You don't follow any artists yet. Follow one to hear when they release a track.</p>
          <Button asChild>
            <Link to="/artists">Find artists</Link>
          </Button>
        </div>
      ) : (
        <ul className="mt-6 grid grid-cols-1 gap-2 sm:grid-cols-2 lg:grid-cols-3" aria-label="Followed artists">
          {data.map((a) => (
            <li key={a.artistId} className="flex items-center gap-3 rounded-xl border border-border bg-card p-3">
              <Link to={a.username ? `/profiles/${a.username}` : `/profile/${a.artistId}`} className="flex min-w-0 flex-1 items-center gap-3">
                <Avatar className="size-12">
                  <AvatarImage src={a.avatarUrl ?? undefined} alt="" size={48} />
                  <AvatarFallback name={a.name} />
                </Avatar>
                <span className="min-w-0">
                  <span className="block truncate font-semibold">{a.name}</span>
                  <span className="text-xs text-muted-foreground">{abbreviateNumber(a.followerCount)} followers</span>
                </span>
              </Link>
              <FollowButton artistId={a.artistId} />
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
