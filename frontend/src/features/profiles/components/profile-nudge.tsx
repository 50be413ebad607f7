import { useState } from 'react'
import { Link } from 'react-router'
import { useQuery } from '@tanstack/react-query'
import { UserRoundCheck } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { DropdownMenu, DropdownMenuContent, DropdownMenuTrigger } from '@/components/ui/dropdown-menu'
import { useOwnProfile } from '@/hooks/use-own-profile'
import { useAuthStore, useRoleSettled } from '@/lib/auth'
import { cn } from '@/lib/utils'
import { fetchRoleProfile, roleProfileQueryKey } from '../api/role-profile'
import { computeCompleteness, nudgeDotColor, shouldShowNudge } from '../lib/completeness'

const dotClass = { red: 'bg-red-500', orange: 'bg-orange-500', yellow: 'bg-yellow-400' } as const
const dismissKey = (userId: string) => `profile_nudge_dismissed_${userId}`

/** ProfileNudge is the top bar's profile-completeness icon with its suggestions. */
export function ProfileNudge() {
  const user = useAuthStore((s) => s.user)
  const role = useAuthStore((s) => s.role)
  const settled = useRoleSettled()
  const { data: profile } = useOwnProfile()
  const [dismissedAt, setDismissedAt] = useState<number | null>(() => {
    const v = user ? localStorage.getItem(dismissKey(user.id)) : null
    return v ? Number(v) : null
  })
  // Phone and track count live in the role's own profile table.
  const { data: extra } = useQuery({
    queryKey: roleProfileQueryKey(user?.id, role),
    enabled: !!user && settled && !!role && role !== 'admin',
    staleTime: 2 * 60_000,
    queryFn: () => (user && role && role !== 'admin' ? fetchRoleProfile(role, user.id) : null),
  })
  if (!user || !role || !profile) return null
  const result = computeCompleteness({
    role,
    displayName: profile.display_name,
    username: profile.username,
    avatarUrl: profile.avatar_url,
    bio: profile.bio,
    location: profile.location,
    phone: extra?.phone,
    isVerified: profile.is_verified,
    trackCount: extra?.track_count,
  })
  const color = nudgeDotColor(result.overall)
  if (!color || !shouldShowNudge(result.overall, dismissedAt)) return null
  const dismiss = () => {
    const now = Date.now()
    localStorage.setItem(dismissKey(user.id), String(now))
    setDismissedAt(now)
  }
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="icon" className="relative" aria-label={`Profile ${result.overall}% complete`}>
          <UserRoundCheck className="size-5" />
          <span className={cn('absolute right-1.5 top-1.5 size-2.5 rounded-full', dotClass[color])} />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-80 p-4">
        <p className="font-semibold">Your profile is {result.overall}% complete</p>
        <div className="my-2 h-2 overflow-hidden rounded-full bg-muted">
          <div className={cn('h-full', dotClass[color])} style={{ width: `${result.overall}%` }} />
        </div>
        <ul className="my-3 grid grid-cols-1 list-disc gap-1 pl-5 text-sm text-muted-foreground">
          {result.suggestions.map((s) => (
            <li key={s}>{s}</li>
          ))}
        </ul>
        <div className="flex gap-2">
          <Button asChild size="sm">
            <Link to="/profile">Complete profile</Link>
          </Button>
          <Button size="sm" variant="ghost" onClick={dismiss}>
            Remind me later
          </Button>
        </div>
      </DropdownMenuContent>
    </DropdownMenu>
  )
}
