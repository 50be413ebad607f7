import { lazy, Suspense, useState } from 'react'
import { ListPlus } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { useAuthStore } from '@/lib/auth'

/** KEEPS_PLAYER marks popups the expanded player does not treat as a click outside it. */
export const KEEPS_PLAYER = 'data-keeps-player'

const AddToPlaylistDialog = lazy(() => import('./add-to-playlist-dialog'))

/**
 * AddToPlaylist adds any track to one of the signed-in user's playlists, or
 * to a new one named in its dialog: from a track card and from the player.
 * The database decides (the owner's playlists only, a track once, the
 * limits) and its refusal is shown. Visitors are not offered it.
 */
export function AddToPlaylist({
  track,
  withLabel = false,
  className,
  onOpenChange,
}: {
  track: { id: string; title: string }
  withLabel?: boolean
  className?: string
  onOpenChange?: (open: boolean) => void
}) {
  const userId = useAuthStore((s) => s.user?.id)
  const [open, setOpen] = useState(false)
  if (!userId) return null
  const show = (o: boolean) => {
    setOpen(o)
    onOpenChange?.(o)
  }
  return (
    <>
      <Button
        type="button"
        variant={withLabel ? 'outline' : 'ghost'}
        size={withLabel ? 'default' : 'icon'}
        className={className}
        aria-label={`Add ${track.title} to a playlist`}
        onClick={() => show(true)}
      >
        <ListPlus />
        {withLabel && 'Add to playlist'}
      </Button>
      {open && (
        <Suspense fallback={null}>
          <AddToPlaylistDialog userId={userId} track={track} onClose={() => show(false)} />
        </Suspense>
      )}
    </>
  )
}
