import { useEffect, useState } from 'react'
import { useLocation, useNavigate, useSearchParams } from 'react-router'
import { Search } from 'lucide-react'
import { cn } from '@/lib/utils'

/** SearchBox is the top bar's search field: typing opens /search with the text, as you type. */
export function SearchBox({ className }: { className?: string }) {
  const navigate = useNavigate()
  const { pathname } = useLocation()
  const [params] = useSearchParams()
  const onSearch = pathname === '/search'
  const [text, setText] = useState(onSearch ? (params.get('q') ?? '') : '')
  // Leaving the page clears the box; the search page's own field may change q.
  useEffect(() => {
    setText(onSearch ? (params.get('q') ?? '') : '')
  }, [onSearch, params])
  return (
    <form
      role="search"
      className={cn('relative w-full max-w-xs', className)}
      onSubmit={(e) => {
        e.preventDefault()
        navigate(`/search?q=${encodeURIComponent(text)}`)
      }}
    >
      <Search className="pointer-events-none absolute left-2.5 top-1/2 size-4 -translate-y-1/2 text-muted-foreground" />
      <input
        type="search"
        value={text}
        aria-label="Search tracks, artists, sponsors and playlists"
        placeholder="Search music, artists…"
        className="h-9 w-full rounded-full border border-border bg-muted/50 pl-8 pr-3 text-sm outline-none focus:ring-2 focus:ring-ring"
        onChange={(e) => {
          setText(e.target.value)
          navigate(`/search?q=${encodeURIComponent(e.target.value)}`, { replace: onSearch })
        }}
      />
    </form>
  )
}
