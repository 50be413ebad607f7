import { Check, Download, EllipsisVertical, ListEnd, ListStart, Trash2 } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuSeparator, DropdownMenuTrigger } from '@/components/ui/dropdown-menu'
import { useAuthStore } from '@/lib/auth'
import { downloadTrack, offlineSupported, removeDownload } from '@/lib/offline'
import { cn } from '@/lib/utils'
import { useOfflineStore } from '@/stores/offline-store'
import { usePlayerStore } from '@/stores/player-store'
import type { Track } from '@/types/api'
import { KEEPS_PLAYER } from './add-to-playlist'

/** TrackActionsMenu is the loaded menu behind TrackActions; it opens at once, on the press that loaded it. */
export default function TrackActionsMenu({ track, className }: { track: Track; className?: string }) {
  const role = useAuthStore((s) => s.role)
  const userId = useAuthStore((s) => s.user?.id)
  const downloaded = useOfflineStore((s) => s.downloads.some((d) => d.track.id === track.id))
  const pending = useOfflineStore((s) => s.pending.includes(track.id))
  const canDownload = !!userId && role === 'fan' && offlineSupported()
  const download = () =>
    downloadTrack(track).then(
      () => toast.success(`${track.title} is ready for offline listening`),
      (e: unknown) => toast.error(e instanceof Error ? e.message : 'Download failed'),
    )
  return (
    <DropdownMenu defaultOpen>
      <DropdownMenuTrigger asChild>
        <Button type="button" variant="ghost" size="icon" className={cn('size-8', className)} aria-label={`More options for ${track.title}`}>
          <EllipsisVertical />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" {...{ [KEEPS_PLAYER]: '' }}>
        <DropdownMenuItem
          onSelect={() => {
            usePlayerStore.getState().playNext(track)
            toast.success(`${track.title} plays next`)
          }}
        >
          <ListStart className="size-4" /> Play next
        </DropdownMenuItem>
        <DropdownMenuItem
          onSelect={() => {
            usePlayerStore.getState().addToQueue(track)
            toast.success(`${track.title} added to the queue`)
          }}
        >
          <ListEnd className="size-4" /> Add to queue
        </DropdownMenuItem>
        {canDownload && (
          <>
            <DropdownMenuSeparator />
            {downloaded ? (
              <DropdownMenuItem onSelect={() => void removeDownload(track.id).then(() => toast.success(`${track.title} removed from this device`))}>
                <Trash2 className="size-4" /> Remove download
              </DropdownMenuItem>
            ) : (
              <DropdownMenuItem disabled={pending} onSelect={() => void download()}>
                {pending ? <Check className="size-4" /> : <Download className="size-4" />} {pending ? 'Downloading…' : 'Download'}
              </DropdownMenuItem>
            )}
          </>
        )}
      </DropdownMenuContent>
    </DropdownMenu>
  )
}
