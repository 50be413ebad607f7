import * as React from 'react'
import { Dialog as D } from 'radix-ui'
import { X } from 'lucide-react'
import { cn } from '@/lib/utils'

export const Dialog = D.Root
export const DialogClose = D.Close

/** DialogContent is a centred modal with an overlay and a close button. */
export function DialogContent({ className, children, title, description, ...props }: React.ComponentProps<typeof D.Content> & { title: string; description?: string }) {
  return (
    <D.Portal>
      <D.Overlay className="fixed inset-0 z-50 bg-black/70" />
      <D.Content
        className={cn('fixed left-1/2 top-1/2 z-50 flex max-h-[90vh] w-[calc(100%-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 flex-col gap-3 rounded-lg border border-border bg-card p-5 shadow-xl', className)}
        {...props}
      >
        <D.Title className="text-base font-semibold">{title}</D.Title>
        <D.Description className={description ? 'text-xs text-muted-foreground' : 'sr-only'}>{description ?? title}</D.Description>
        {children}
        <D.Close className="absolute right-4 top-4 opacity-70 hover:opacity-100" aria-label="Close">
          <X className="size-4" />
        </D.Close>
      </D.Content>
    </D.Portal>
  )
}
