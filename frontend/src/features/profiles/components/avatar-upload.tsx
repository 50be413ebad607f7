import { useRef } from 'react'
import { Camera, Trash2 } from 'lucide-react'
import { toast } from 'sonner'
import { Avatar, AvatarFallback, AvatarImage } from '@/components/ui/avatar'
import { Button } from '@/components/ui/button'
import { AVATAR_TYPES, useSetAvatar } from '../api/avatar'

/** AvatarUpload shows the user's photo (initials without one) and uploads, replaces or removes it. */
export function AvatarUpload({ userId, name, avatarUrl }: { userId: string; name: string; avatarUrl: string | null }) {
  const input = useRef<HTMLInputElement>(null)
  const set = useSetAvatar(userId)
  const change = (file: File | null) =>
    set.mutate(file, {
      onSuccess: () => toast.success(file ? 'Profile photo updated' : 'Profile photo removed'),
      onError: (e) => toast.error('Could not change the photo', { description: e.message }),
    })
  return (
    <div className="flex items-center gap-4" data-testid="avatar-upload">
      <Avatar className="size-20">
        <AvatarImage src={avatarUrl ?? undefined} alt={name} size={80} />
        <AvatarFallback name={name} className="text-xl" />
      </Avatar>
      <div className="flex flex-wrap gap-2">
        <input
          ref={input}
          type="file"
          accept={AVATAR_TYPES.join(',')}
          className="sr-only"
          aria-label="Profile photo file"
          onChange={(e) => {
            const file = e.target.files?.[0]
            e.target.value = ''
            if (file) change(file)
          }}
        />
        <Button type="button" variant="outline" disabled={set.isPending} onClick={() => input.current?.click()}>
          <Camera /> {set.isPending ? 'Uploading…' : avatarUrl ? 'Change photo' : 'Upload photo'}
        </Button>
        {avatarUrl && (
          <Button type="button" variant="ghost" disabled={set.isPending} onClick={() => change(null)}>
            <Trash2 /> Remove
          </Button>
        )}
        <p className="w-full text-xs text-muted-foreground">JPEG, PNG, WebP or GIF, up to 5 MB.</p>
      </div>
    </div>
  )
}
