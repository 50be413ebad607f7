import { useParams } from 'react-router'
import { useQuery } from '@tanstack/react-query'
import { Skeleton } from '@/components/ui/skeleton'
import { supabase } from '@/lib/supabase'
import { hydrateTracks, TRACK_COLUMNS } from '@/lib/tracks'
import { ShareButton } from '@/components/share-button'
import { TrackCard } from '@/features/tracks/components/track-card'
import NotFoundPage from './not-found'

async function getTrack(id: string) {
  const { data, error } = await supabase().from('tracks').select(TRACK_COLUMNS).eq('id', id).maybeSingle()
  if (error) throw error
  return data ? (await hydrateTracks([data]))[0] : null
}

/** TrackPage is /track/{id}: a shared track, playable. */
export default function TrackPage() {
  const { id = '' } = useParams()
  const valid = /^[0-9a-f-]{36}$/i.test(id)
  const { data: track, isLoading } = useQuery({ queryKey: ['track', id], queryFn: () => getTrack(id), enabled: valid })
  if (valid && isLoading) return <Skeleton className="mx-auto aspect-[3/4] w-full max-w-xs" />
  if (!track) return <NotFoundPage />
  return (
    <div className="mx-auto flex max-w-xs flex-col gap-4">
      <h1 className="sr-only">{track.title}</h1>
      <TrackCard track={track} aboveFold />
      <ShareButton withLabel target={{ title: track.title, text: `${track.title} by ${track.artist} on Backline`, path: `/track/${track.id}` }} />
    </div>
  )
}
