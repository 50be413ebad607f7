import { useEffect, useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import { BadgeCheck, History, ListMusic, Search, X } from 'lucide-react'
import { Avatar, AvatarFallback, AvatarImage } from '@/components/ui/avatar'
import { Button } from '@/components/ui/button'
import { SafeImage } from '@/components/safe-image'
import { Skeleton } from '@/components/ui/skeleton'
import { abbreviateNumber } from '@/lib/format'
import { useSearch, type SearchPerson } from '@/features/discovery/api/discovery'
import { forgetSearches, recentSearches, rememberSearch } from '@/lib/recent-searches'
import { TrackCard } from '@/features/tracks/components/track-card'

/** useDebounced is value once it has stayed put for ms. */
function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value)
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms)
    return () => clearTimeout(t)
  }, [value, ms])
  return v
}

function People({ title, people }: { title: string; people: SearchPerson[] }) {
  if (people.length === 0) return null
  return (
    <section className="mt-8">
      <h2 className="mb-3 text-lg font-bold">{title}</h2>
      <ul className="grid grid-cols-1 gap-2 sm:grid-cols-2 lg:grid-cols-4">
        {people.map((p) => (
          <li key={p.id}>
            <Link to={p.username ? `/profiles/${p.username}` : `/profile/${p.id}`} className="flex items-center gap-3 rounded-xl border border-border bg-card p-3 hover:bg-accent">
              <Avatar className="size-12">
                <AvatarImage src={p.avatar_url ?? undefined} alt="" size={48} />
                <AvatarFallback name={p.name} />
              </Avatar>
              <span className="min-w-0">
                <span className="flex items-center gap-1 truncate font-semibold">
                  {p.name} {p.is_verified && <BadgeCheck className="size-4 text-sky-400" aria-label="Verified" />}
                </span>
                {p.follower_count !== undefined && <span className="text-xs text-muted-foreground">{abbreviateNumber(p.follower_count)} followers</span>}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  )
}

/** SearchPage is /search?q=: tracks, artists, sponsors and public playlists as you type. */
export default function SearchPage() {
  const [params, setParams] = useSearchParams()
  const q = params.get('q') ?? ''
  const query = useDebounced(q, 200)
  const { data, isFetching } = useSearch(query)
  const [recent, setRecent] = useState(recentSearches)
  const remember = () => setRecent(rememberSearch(q))
  const empty = data && data.tracks.length + data.artists.length + data.sponsors.length + data.playlists.length === 0

  return (
    <div>
      <form
        role="search"
        className="relative md:hidden"
        onSubmit={(e) => {
          e.preventDefault()
          remember()
        }}
      >
        <Search className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground" />
        <input
          type="search"
          autoFocus
          value={q}
          onChange={(e) => setParams({ q: e.target.value }, { replace: true })}
          aria-label="Search"
          placeholder="Search music, artists, playlists"
          className="h-11 w-full rounded-full border border-border bg-muted/50 pl-9 pr-3 outline-none focus:ring-2 focus:ring-ring"
        />
      </form>

      {q.trim().length < 2 ? (
        <section className="mt-6">
          <div className="flex items-center justify-between">
            <h1 className="text-2xl font-bold">Search</h1>
            {recent.length > 0 && (
              <Button
                variant="ghost"
                size="sm"
                onClick={() => {
                  forgetSearches()
                  setRecent([])
                }}
              >
                <X /> Clear
              </Button>
            )}
          </div>
          {recent.length === 0 ? (
            <p className="mt-3 text-muted-foreground">Find tracks, artists, sponsors and playlists. Spelling need not be perfect.</p>
          ) : (
            <ul className="mt-3 flex flex-col gap-1" aria-label="Recent searches">
              {recent.map((s) => (
                <li key={s}>
                  <button type="button" className="flex w-full items-center gap-2 rounded-md px-2 py-2 text-left hover:bg-accent" onClick={() => setParams({ q: s })}>
                    <History className="size-4 text-muted-foreground" /> {s}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
      ) : (
        // A click on any result keeps the search among the recent ones.
        <div className="mt-4" onClickCapture={remember} aria-busy={isFetching}>
          <h1 className="sr-only">Results for {q}</h1>
          {!data ? (
            <div className="grid grid-cols-2 gap-4 md:grid-cols-4 lg:grid-cols-6">
              {Array.from({ length: 6 }, (_, i) => (
                <Skeleton key={i} className="aspect-[3/4]" />
              ))}
            </div>
          ) : empty ? (
            <p className="mt-6 text-muted-foreground">Nothing found for “{query}”.</p>
          ) : (
            <>
              {data.tracks.length > 0 && (
                <section>
                  <h2 className="mb-3 text-lg font-bold">Tracks</h2>
                  <div className="grid grid-cols-2 gap-4 md:grid-cols-4 lg:grid-cols-6" data-testid="search-tracks">
                    {data.tracks.map((t) => (
                      <TrackCard key={t.id} track={t} list={data.tracks} />
                    ))}
                  </div>
                </section>
              )}
              <People title="Artists" people={data.artists} />
              <People title="Sponsors" people={data.sponsors} />
              {data.playlists.length > 0 && (
                <section className="mt-8">
                  <h2 className="mb-3 text-lg font-bold">Playlists</h2>
                  <ul className="grid grid-cols-1 gap-2 sm:grid-cols-2 lg:grid-cols-4">
                    {data.playlists.map((p) => (
                      <li key={p.id}>
                        <Link to={`/playlists/${p.id}`} className="flex items-center gap-3 rounded-xl border border-border bg-card p-3 hover:bg-accent">
                          {p.cover_url ? (
                            <SafeImage src={p.cover_url} alt="" className="size-12 rounded-md object-cover" size={48} />
                          ) : (
                            <span className="flex size-12 items-center justify-center rounded-md bg-muted">
                              <ListMusic className="size-5" />
                            </span>
                          )}
                          <span className="min-w-0">
                            <span className="block truncate font-semibold">{p.name}</span>
                            <span className="text-xs text-muted-foreground">
                              {p.owner_name ?? 'A listener'} · {p.track_count} tracks
                            </span>
                          </span>
                        </Link>
                      </li>
                    ))}
                  </ul>
                </section>
              )}
            </>
          )}
        </div>
      )}
    </div>
  )
}
