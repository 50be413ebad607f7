import { Link } from 'react-router'
import { Avatar, AvatarFallback, AvatarImage } from '@/components/ui/avatar'
import { Button } from '@/components/ui/button'
import { Sheet, SheetContent, SheetDescription, SheetTitle } from '@/components/ui/sheet'
import { useOwnProfile } from '@/hooks/use-own-profile'
import { useAuthStore } from '@/lib/auth'
import { useSignOut } from './use-sign-out'

/** ProfileSheet is the mobile bottom sheet titled 'Profile Menu'. */
export function ProfileSheet({ open, onOpenChange }: { open: boolean; onOpenChange: (o: boolean) => void }) {
  const user = useAuthStore((s) => s.user)
  const { data: profile } = useOwnProfile()
  const onSignOut = useSignOut()
  const name = profile?.display_name || user?.email || ''
  return (
    <Sheet open={open} onOpenChange={onOpenChange}>
      <SheetContent>
        <SheetTitle>Profile Menu</SheetTitle>
        <SheetDescription>Your account</SheetDescription>
        <div className="my-4 flex items-center gap-3">
          <Avatar className="size-12">
            <AvatarImage src={profile?.avatar_url ?? undefined} alt={name} size={48} />
            <AvatarFallback name={name} />
          </Avatar>
          <div className="min-w-0">
            <p className="truncate font-semibold">{name}</p>
            <p className="truncate text-sm text-muted-foreground">{user?.email}</p>
          </div>
        </div>
        <div className="grid grid-cols-1 gap-2">
          <Button asChild variant="outline" onClick={() => onOpenChange(false)}>
            <Link to="/profile">Edit Profile</Link>
          </Button>
          <Button asChild variant="outline" onClick={() => onOpenChange(false)}>
            <Link to="/offline">Offline library</Link>
          </Button>
          <Button asChild variant="outline" onClick={() => onOpenChange(false)}>
            <Link to="/playlists/liked">Liked songs</Link>
          </Button>
          <Button asChild variant="outline" onClick={() => onOpenChange(false)}>
            <Link to="/following">Following</Link>
          </Button>
          <Button
            variant="destructive"
            onClick={() => {
              onOpenChange(false)
              void onSignOut()
            }}
          >
            Sign Out
          </Button>
        </div>
      </SheetContent>
    </Sheet>
  )
}
