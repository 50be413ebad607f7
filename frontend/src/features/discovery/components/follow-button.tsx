import { Link } from 'react-router'
import { UserCheck, UserPlus } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { useAuthStore } from '@/lib/auth'
import { useFollow, useFollowing } from '../api/discovery'

/** FollowButton follows or unfollows an artist; visitors are sent to sign in. */
export function FollowButton({ artistId }: { artistId: string }) {
  const user = useAuthStore((s) => s.user)
  const following = useFollowing(user?.id)
  const follow = useFollow(user?.id)
  if (!user) {
    return (
      <Button asChild variant="outline">
        <Link to="/login">
          <UserPlus /> Follow
        </Link>
      </Button>
    )
  }
  if (user.id === artistId) return null
  const isFollowing = !!following.data?.some((a) => a.artistId === artistId)
  return (
    <Button
      type="button"
      variant={isFollowing ? 'secondary' : 'default'}
      disabled={follow.isPending || following.isLoading}
      aria-pressed={isFollowing}
      onClick={() =>
        follow.mutate(
          { artistId, follow: !isFollowing },
          { onError: (e) => toast.error(e instanceof Error ? e.message : 'Could not update following') },
        )
      }
    >
      {isFollowing ? <UserCheck /> : <UserPlus />} {isFollowing ? 'Following' : 'Follow'}
    </Button>
  )
}
