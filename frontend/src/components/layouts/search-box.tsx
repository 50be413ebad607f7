import { useEffect, useRef, useState } from 'react'
import { useLocation, useNavigate, useSearchParams } from 'react-router'
import { Search } from 'lucide-react'
import { cn } from '@/lib/utils'

/** SearchBox is the top bar's search field: typing opens /search with the text, as you type. */
export function SearchBox({ className }: { className?: string }) {
  const navigate = useNavigate()
  const { pathname } = useLocation()
  const [params] = useSearchParams()
  const onSearch = pathname === '/search'
  const q = onSearch ? (params.get('q') ?? '') : ''
  const [text, setText] = useState(q)
  const input = useRef<HTMLInputElement>(null)
  // Leaving the page clears the box, and a search chosen on the page (a
  // recent one) shows in it; while one types, the box is the source.
  useEffect(() => {
    if (document.activeElement !== input.current) setText(q)
  }, [q])
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
        ref={input}
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
