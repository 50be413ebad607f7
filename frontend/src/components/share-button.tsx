import { Share2 } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { cn } from '@/lib/utils'
import { shareLink, type ShareTarget } from '@/lib/share'

/** ShareButton shares a page: the share sheet where there is one, else the link is copied. */
export function ShareButton({ target, withLabel = false, className }: { target: ShareTarget; withLabel?: boolean; className?: string }) {
  return (
    <Button
      type="button"
      variant={withLabel ? 'outline' : 'ghost'}
      size={withLabel ? 'default' : 'icon'}
      className={cn(className)}
      aria-label={`Share ${target.title}`}
      onClick={(e) => {
        e.preventDefault()
        e.stopPropagation()
        void shareLink(target)
      }}
    >
      <Share2 /> {withLabel && 'Share'}
    </Button>
  )
}
