import { Link } from 'react-router'
import { HardDriveDownload, Heart, LayoutDashboard, LogOut, UserCheck, UserPen } from 'lucide-react'
import { Avatar, AvatarFallback, AvatarImage } from '@/components/ui/avatar'
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuLabel, DropdownMenuSeparator, DropdownMenuTrigger } from '@/components/ui/dropdown-menu'
import { dashboardPath, roleBadgeClass } from '@/config/nav'
import { useOwnProfile } from '@/hooks/use-own-profile'
import { useAuthStore } from '@/lib/auth'
import { cn } from '@/lib/utils'
import { useSignOut } from './use-sign-out'

/** UserMenu shows avatar, name, role badge, email, bio and account links. */
export function UserMenu() {
  const user = useAuthStore((s) => s.user)
  const role = useAuthStore((s) => s.role)
  const { data: profile } = useOwnProfile()
  const onSignOut = useSignOut()
  if (!user) return null
  const name = profile?.display_name || user.email || 'Account'
  return (
    <DropdownMenu>
      <DropdownMenuTrigger className="rounded-full focus-visible:ring-2 focus-visible:ring-ring" aria-label="User menu" data-testid="user-menu">
        <Avatar className="size-9">
          <AvatarImage src={profile?.avatar_url ?? undefined} alt={name} size={36} />
          <AvatarFallback name={name} />
        </Avatar>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-72">
        <DropdownMenuLabel className="grid grid-cols-1 gap-1">
          <div className="flex items-center gap-2">
            <span className="truncate font-semibold">{name}</span>
            {role && <span className={cn('rounded-full px-2 py-0.5 text-[10px] font-semibold uppercase', roleBadgeClass[role])}>{role}</span>}
          </div>
          <span className="truncate text-xs text-muted-foreground">{user.email}</span>
          {profile?.bio && <span className="line-clamp-2 text-xs text-muted-foreground">{profile.bio}</span>}
        </DropdownMenuLabel>
        <DropdownMenuSeparator />
        <DropdownMenuItem asChild>
          <Link to={dashboardPath(role)}>
            <LayoutDashboard className="size-4" /> Dashboard
          </Link>
        </DropdownMenuItem>
        <DropdownMenuItem asChild>
          <Link to="/profile">
            <UserPen className="size-4" /> Edit Profile
          </Link>
        </DropdownMenuItem>
        <DropdownMenuItem asChild>
          <Link to="/offline">
            <HardDriveDownload className="size-4" /> Offline library
          </Link>
        </DropdownMenuItem>
        <DropdownMenuItem asChild>
          <Link to="/playlists/liked">
            <Heart className="size-4" /> Liked songs
          </Link>
        </DropdownMenuItem>
        <DropdownMenuItem asChild>
          <Link to="/following">
            <UserCheck className="size-4" /> Following
          </Link>
        </DropdownMenuItem>
        <DropdownMenuSeparator />
        <DropdownMenuItem onSelect={() => void onSignOut()}>
          <LogOut className="size-4" /> Sign out
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  )
}
