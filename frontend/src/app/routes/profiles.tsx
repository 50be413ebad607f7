import { useState } from 'react'
import { Link } from 'react-router'
import { BadgeCheck } from 'lucide-react'
import { Avatar, AvatarFallback, AvatarImage } from '@/components/ui/avatar'
import { Input } from '@/components/ui/input'
import { Skeleton } from '@/components/ui/skeleton'
import { roleBadgeClass } from '@/config/nav'
import { useOnlineUsers } from '@/hooks/use-online-users'
import { cn } from '@/lib/utils'
import { usePublicProfiles } from '@/features/profiles/api/get-profiles'

const filters = ['all', 'artist', 'sponsor', 'fan'] as const

/** ProfilesPage is Discover: public profiles with a role filter and search. */
export default function ProfilesPage() {
  const [role, setRole] = useState<(typeof filters)[number]>('all')
  const [q, setQ] = useState('')
  const { data = [], isLoading } = usePublicProfiles(role, q.trim() || undefined)
  const online = useOnlineUsers()
  return (
    <div>
      <h1 className="text-3xl font-bold">Discover</h1>
      <p className="text-muted-foreground">Find artists, sponsors and fans.</p>
      <div className="mt-4 flex flex-wrap items-center gap-2">
        {filters.map((f) => (
          <button key={f} type="button" onClick={() => setRole(f)} className={cn('rounded-full border px-3 py-1 text-sm capitalize', f === role ? 'border-primary bg-primary text-white' : 'border-border')}>
            {f === 'all' ? 'All' : `${f}s`}
          </button>
        ))}
        <Input className="ml-auto max-w-xs" placeholder="Search by name or @username" value={q} onChange={(e) => setQ(e.target.value)} aria-label="Search profiles" />
      </div>
      <div className="mt-6 grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
        {isLoading && Array.from({ length: 6 }, (_, i) => <Skeleton key={i} className="h-20" />)}
        {data.map((p) => {
          const name = p.display_name || p.username || 'User'
          return (
            <Link key={p.id} to={p.username ? `/profiles/${p.username}` : `/profile/${p.id}`} className="flex items-center gap-3 rounded-xl border border-border bg-card p-3">
              <div className="relative">
                <Avatar className="size-12">
                  <AvatarImage src={p.avatar_url ?? undefined} alt={name} size={48} />
                  <AvatarFallback name={name} />
                </Avatar>
                {online.has(p.id) && <span className="absolute bottom-0 right-0 size-3 rounded-full border-2 border-card bg-green-500" aria-label="Online" />}
              </div>
              <div className="min-w-0 flex-1">
                <p className="flex items-center gap-1 truncate font-semibold">
                  {name} {p.is_verified && <BadgeCheck className="size-4 text-sky-400" aria-label="Verified" />}
                </p>
                {p.username && <p className="truncate text-xs text-muted-foreground">@{p.username}</p>}
              </div>
              {p.role && <span className={cn('rounded-full px-2 py-0.5 text-[10px] font-semibold uppercase', roleBadgeClass[p.role])}>{p.role}</span>}
            </Link>
          )
        })}
      </div>
      {!isLoading && data.length === 0 && <p className="py-12 text-center text-muted-foreground">No profiles found</p>}
    </div>
  )
}
