import { Link } from 'react-router'
import { Heart } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { useAuthStore } from '@/lib/auth'
import { useFavoriteTracks } from '@/features/tracks/api/get-favorites'
import { TrackCard } from '@/features/tracks/components/track-card'

/** FavoritesPage lists liked tracks. */
export default function FavoritesPage() {
  const userId = useAuthStore((s) => s.user?.id)
  const { data = [], isLoading } = useFavoriteTracks(userId)
  return (
    <div>
      <h1 className="flex items-center gap-2 text-3xl font-bold">
        <Heart className="text-pink-500" /> Favorites
      </h1>
      <div className="mt-6 grid grid-cols-2 gap-4 md:grid-cols-4 lg:grid-cols-6">
        {isLoading ? Array.from({ length: 6 }, (_, i) => <Skeleton key={i} className="aspect-[3/4]" />) : data.map((t) => <TrackCard key={t.id} track={t} list={data} />)}
      </div>
      {!isLoading && data.length === 0 && (
        <div className="grid grid-cols-1 justify-items-center gap-3 py-16 text-center text-muted-foreground">
          <p>You haven't liked any tracks yet. Tap the heart in the player to save a track here.</p>
          <Button asChild>
            <Link to="/charts">Find music</Link>
          </Button>
        </div>
      )}
    </div>
  )
}
