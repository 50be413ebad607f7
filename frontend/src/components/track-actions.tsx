import { lazy, Suspense, useState } from 'react'
import { EllipsisVertical } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { cn } from '@/lib/utils'
import type { Track } from '@/types/api'

const TrackActionsMenu = lazy(() => import('./track-actions-menu'))

/**
 * TrackActions is a track's "more" button: Play next, Add to queue and, for
 * a signed-in fan, Download for offline listening. The menu's code loads on
 * the first press, so pages of track cards do not carry it.
 */
export function TrackActions({ track, className }: { track: Track; className?: string }) {
  const [loaded, setLoaded] = useState(false)
  const button = (
    <Button type="button" variant="ghost" size="icon" className={cn('size-8', className)} aria-label={`More options for ${track.title}`} onClick={() => setLoaded(true)}>
      <EllipsisVertical />
    </Button>
  )
  if (!loaded) return button
  return (
    <Suspense fallback={button}>
      <TrackActionsMenu track={track} className={className} />
    </Suspense>
  )
}
