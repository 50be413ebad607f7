import * as React from 'react'
import { Avatar as AvatarPrimitive } from 'radix-ui'
import { mediaUrl } from '@/lib/media'
import { cn } from '@/lib/utils'

/** Avatar, AvatarImage and AvatarFallback are the shadcn avatar. */
function Avatar({ className, ...props }: React.ComponentProps<typeof AvatarPrimitive.Root>) {
  return <AvatarPrimitive.Root className={cn('relative flex size-10 shrink-0 overflow-hidden rounded-full', className)} {...props} />
}
function AvatarImage({ className, src, ...props }: React.ComponentProps<typeof AvatarPrimitive.Image>) {
  return <AvatarPrimitive.Image className={cn('aspect-square size-full object-cover', className)} src={mediaUrl(src)} {...props} />
}
function AvatarFallback({ className, ...props }: React.ComponentProps<typeof AvatarPrimitive.Fallback>) {
  return (
    <AvatarPrimitive.Fallback
      className={cn('flex size-full items-center justify-center rounded-full bg-muted text-sm font-semibold uppercase', className)}
      {...props}
    />
  )
}

export { Avatar, AvatarImage, AvatarFallback }
