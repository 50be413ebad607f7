import { useState } from 'react'
import { Input } from '@/components/ui/input'
import { Skeleton } from '@/components/ui/skeleton'
import { useOnlineUsers } from '@/hooks/use-online-users'
import { useArtists } from '@/features/profiles/api/get-profiles'
import { ArtistCard } from '@/features/profiles/components/people-cards'

/** ArtistsPage lists artists with a name filter. */
export default function ArtistsPage() {
  const { data = [], isLoading } = useArtists()
  const online = useOnlineUsers()
  const [q, setQ] = useState('')
  const shown = data.filter((a) => `${a.display_name ?? ''} ${a.name ?? ''} ${a.location ?? ''}`.toLowerCase().includes(q.toLowerCase()))
  return (
    <div>
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold">Artists</h1>
          <p className="text-muted-foreground">Independent Nigerian artists on Backline.</p>
        </div>
        <Input className="max-w-xs" placeholder="Search artists" value={q} onChange={(e) => setQ(e.target.value)} aria-label="Search artists" />
      </div>
      <div className="mt-6 grid grid-cols-2 gap-4 md:grid-cols-4 lg:grid-cols-5">
        {isLoading
          ? Array.from({ length: 10 }, (_, i) => <Skeleton key={i} className="h-60" />)
          : shown.map((a) => <ArtistCard key={a.id} artist={a} online={online.has(a.id)} />)}
      </div>
      {!isLoading && shown.length === 0 && <p className="py-12 text-center text-muted-foreground">No artists found</p>}
    </div>
  )
}
