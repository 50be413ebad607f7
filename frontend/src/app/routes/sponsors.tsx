import { Link } from 'react-router'
import { useQuery } from '@tanstack/react-query'
import { BadgeCheck, Globe } from 'lucide-react'
import { Avatar, AvatarFallback, AvatarImage } from '@/components/ui/avatar'
import { Skeleton } from '@/components/ui/skeleton'
import { useSponsors } from '@/features/profiles/api/get-profiles'
import { getTracks } from '@/features/tracks/api/get-tracks'
import { TrackCard } from '@/features/tracks/components/track-card'

/** SponsorsPage lists sponsors and the sponsored tracks they back. */
export default function SponsorsPage() {
  const { data = [], isLoading } = useSponsors()
  const sponsored = useQuery({
    queryKey: ['tracks', { sponsored: true }],
    queryFn: async () => (await getTracks({ order: 'popular', limit: 60 })).filter((t) => t.isSponsored).slice(0, 12),
    staleTime: 30_000,
  })
  return (
    <div>
      <h1 className="text-3xl font-bold">Sponsors</h1>
      <p className="text-muted-foreground">Brands and patrons who pay artists for every complete listen.</p>
      <div className="mt-6 grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {isLoading
          ? Array.from({ length: 6 }, (_, i) => <Skeleton key={i} className="h-28" />)
          : data.map((s) => {
              const name = s.company_name || s.display_name || s.name || 'Sponsor'
              return (
                <Link key={s.id} to={s.username ? `/profiles/${s.username}` : `/profile/${s.id}`} className="flex gap-3 rounded-xl border border-border bg-card p-4">
                  <Avatar className="size-14">
                    <AvatarImage src={s.avatar_url ?? undefined} alt={name} size={56} />
                    <AvatarFallback name={name} />
                  </Avatar>
                  <div className="min-w-0">
                    <p className="flex items-center gap-1 font-semibold">
                      <span className="truncate">{name}</span>
                      {s.is_verified && <BadgeCheck className="size-4 text-sky-400" aria-label="Verified" />}
                    </p>
                    <p className="line-clamp-2 text-sm text-muted-foreground">{s.bio || 'Supporting independent artists on Backline.'}</p>
                    {s.website && (
                      <p className="mt-1 flex items-center gap-1 text-xs text-muted-foreground">
                        <Globe className="size-3" /> {s.website.replace(/^https?:\/\//, '')}
                      </p>
                    )}
                  </div>
                </Link>
              )
            })}
      </div>
      {!isLoading && data.length === 0 && <p className="py-12 text-center text-muted-foreground">No sponsors yet</p>}
      <section className="mt-12">
        <h2 className="mb-4 text-2xl font-bold">Sponsored Artists</h2>
        {sponsored.isLoading ? (
          <Skeleton className="h-60" />
        ) : (sponsored.data ?? []).length === 0 ? (
          <p className="rounded-xl border border-dashed border-border p-8 text-center text-muted-foreground">No sponsored tracks yet</p>
        ) : (
          <div className="grid grid-cols-2 gap-4 md:grid-cols-4 lg:grid-cols-6">
            {sponsored.data!.map((t) => (
              <TrackCard key={t.id} track={t} list={sponsored.data} />
            ))}
          </div>
        )}
      </section>
    </div>
  )
}
