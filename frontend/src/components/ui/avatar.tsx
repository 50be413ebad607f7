import * as React from 'react'
import { Avatar as AvatarPrimitive } from 'radix-ui'
import { initials } from '@/lib/format'
import { imageUrl } from '@/lib/media'
import { cn } from '@/lib/utils'

/** Avatar, AvatarImage and AvatarFallback are the shadcn avatar. */
function Avatar({ className, ...props }: React.ComponentProps<typeof AvatarPrimitive.Root>) {
  return <AvatarPrimitive.Root className={cn('relative flex size-10 shrink-0 overflow-hidden rounded-full', className)} {...props} />
}
/** AvatarImage loads a stored photo resized by storage's image transform to size (the avatar's CSS pixels, 40 by default). */
function AvatarImage({ className, src, size = 40, ...props }: React.ComponentProps<typeof AvatarPrimitive.Image> & { size?: number }) {
  return <AvatarPrimitive.Image className={cn('aspect-square size-full object-cover', className)} src={imageUrl(src, size)} {...props} />
}
/** AvatarFallback shows while there is no photo: the initials of name, or its children. */
function AvatarFallback({ className, name, children, ...props }: React.ComponentProps<typeof AvatarPrimitive.Fallback> & { name?: string | null }) {
  return (
    <AvatarPrimitive.Fallback
      className={cn('flex size-full items-center justify-center rounded-full bg-muted text-sm font-semibold uppercase', className)}
      {...props}
    >
      {name !== undefined ? initials(name) : children}
    </AvatarPrimitive.Fallback>
  )
}

export { Avatar, AvatarImage, AvatarFallback }
