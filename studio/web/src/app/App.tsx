import { lazy, Suspense, useState } from 'react'
import { NavLink, Route, Routes } from 'react-router'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { BookOpen, Database, Gauge, HardDrive, LogOut, Menu, Radio, ScrollText, Table2, TerminalSquare, Users, X } from 'lucide-react'
import { loadSession, signOut, type Session } from '@/lib/api'
import { cn } from '@/lib/utils'
import { SignIn } from './SignIn'
import { databaseNav, databaseRoutes } from './databaseScreens'

// Each screen is its own chunk: the first page loads the shell and Home.
const Home = lazy(() => import('@/features/home/Home'))
const TableEditor = lazy(() => import('@/features/tables/TableEditor'))
const SqlEditor = lazy(() => import('@/features/sql/SqlEditor'))
const ApiDocs = lazy(() => import('@/features/api/ApiDocs'))
const Auth = lazy(() => import('@/features/auth/Auth'))
const Storage = lazy(() => import('@/features/storage/Storage'))
const Logs = lazy(() => import('@/features/logs/Logs'))
const Realtime = lazy(() => import('@/features/realtime/Realtime'))

const nav = [
  { to: '/', label: 'Home', icon: Gauge, end: true },
  { to: '/tables', label: 'Table editor', icon: Table2 },
  { to: '/sql', label: 'SQL editor', icon: TerminalSquare },
  { to: '/auth', label: 'Authentication', icon: Users },
  { to: '/storage', label: 'Storage', icon: HardDrive },
  { to: '/realtime', label: 'Realtime', icon: Radio },
  { to: '/logs', label: 'Logs', icon: ScrollText },
  { to: '/docs', label: 'API', icon: BookOpen },
  ...databaseNav,
]

/** App is Studio's shell: the session gate, the navigation and the screens. */
export function App() {
  const qc = useQueryClient()
  const session = useQuery({ queryKey: ['session'], queryFn: loadSession, staleTime: Infinity })
  if (session.isPending) return <div className="p-8 text-muted-foreground">Loading Studio…</div>
  if (session.isError) return <div className="p-8 text-destructive">Studio could not start: {String(session.error)}</div>
  if (!session.data) return <SignIn onSignedIn={(s) => qc.setQueryData(['session'], s)} />
  return <Shell session={session.data} />
}

function Shell({ session }: { session: Session }) {
  const qc = useQueryClient()
  const [leaving, setLeaving] = useState(false)
  // On a phone the navigation is a panel over the screen, opened from the top bar.
  const [menuOpen, setMenuOpen] = useState(false)
  return (
    <div className="flex h-dvh flex-col overflow-hidden md:flex-row">
      <header className="flex shrink-0 items-center justify-between border-b border-border bg-panel px-3 py-2 md:hidden">
        <span className="flex items-center gap-2 font-semibold">
          <Database className="size-5 text-primary" /> Basalt Studio
        </span>
        <button type="button" className="rounded-md p-2 hover:bg-accent" aria-label={menuOpen ? 'Close navigation' : 'Open navigation'} aria-expanded={menuOpen} onClick={() => setMenuOpen(!menuOpen)}>
          {menuOpen ? <X className="size-5" /> : <Menu className="size-5" />}
        </button>
      </header>
      <aside
        className={cn(
          'w-52 shrink-0 flex-col border-r border-border bg-panel md:flex',
          menuOpen ? 'fixed inset-y-0 left-0 z-40 flex w-64 overflow-y-auto shadow-xl' : 'hidden',
        )}
      >
        <div className="flex items-center gap-2 px-4 py-4 font-semibold">
          <Database className="size-5 text-primary" /> Basalt Studio
        </div>
        <nav className="flex flex-1 flex-col gap-0.5 px-2" aria-label="Studio">
          {nav.map((n) => (
            <NavLink
              key={n.to}
              to={n.to}
              end={'end' in n && n.end}
              onClick={() => setMenuOpen(false)}
              className={({ isActive }) => cn('flex items-center gap-2 rounded-md px-2 py-1.5 text-sm', isActive ? 'bg-accent text-foreground' : 'text-muted-foreground hover:bg-accent/60 hover:text-foreground')}
            >
              <n.icon className="size-4" /> {n.label}
            </NavLink>
          ))}
        </nav>
        <div className="border-t border-border p-3 text-xs text-muted-foreground">
          <div className="truncate" title={session.operator.email}>
            {session.operator.email}
          </div>
          {session.open ? (
            <div className="mt-1">open on this machine (basalt dev)</div>
          ) : (
            <button
              className="mt-2 flex items-center gap-1 hover:text-foreground"
              disabled={leaving}
              onClick={async () => {
                setLeaving(true)
                await signOut().catch(() => {})
                qc.setQueryData(['session'], null)
              }}
            >
              <LogOut className="size-3.5" /> Sign out
            </button>
          )}
        </div>
      </aside>
      {menuOpen && <div className="fixed inset-0 z-30 bg-black/40 md:hidden" aria-hidden="true" onClick={() => setMenuOpen(false)} />}
      <main className="flex min-h-0 min-w-0 flex-1 flex-col overflow-hidden">
        <Suspense fallback={<div className="p-6 text-muted-foreground">Loading…</div>}>
          <Routes>
            <Route path="/" element={<Home />} />
            <Route path="/tables" element={<TableEditor />} />
            <Route path="/tables/:schema/:table" element={<TableEditor />} />
            <Route path="/sql" element={<SqlEditor />} />
            <Route path="/auth" element={<Auth />} />
            <Route path="/storage" element={<Storage />} />
            <Route path="/realtime" element={<Realtime />} />
            <Route path="/logs" element={<Logs />} />
            <Route path="/docs" element={<ApiDocs />} />
            <Route path="/docs/:table" element={<ApiDocs />} />
            {databaseRoutes}
            <Route path="*" element={<div className="p-6 text-muted-foreground">No such page.</div>} />
          </Routes>
        </Suspense>
      </main>
    </div>
  )
}
