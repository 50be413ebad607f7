import { NavLink, useParams } from 'react-router'
import { cn } from '@/lib/utils'
import { Migrations } from './Migrations'
import { Backups } from './Backups'
import { Extensions } from './Extensions'
import { Functions, Slots, Triggers } from './Catalogs'
import { Roles } from './Roles'
import { Publications } from './Publications'
import { SIDE_START, SPLIT, SPLIT_MAIN } from '@/lib/layout'

const sections = [
  { id: 'migrations', label: 'Migrations', view: Migrations },
  { id: 'roles', label: 'Roles', view: Roles },
  { id: 'extensions', label: 'Extensions', view: Extensions },
  { id: 'functions', label: 'Functions', view: Functions },
  { id: 'triggers', label: 'Triggers', view: Triggers },
  { id: 'publications', label: 'Publications', view: Publications },
  { id: 'replication', label: 'Replication slots', view: Slots },
  { id: 'backups', label: 'Backups', view: Backups },
] as const

/** Database shows the migrations, roles, extensions, functions, triggers, publications, replication slots and backups. */
export default function Database() {
  const { section = 'migrations' } = useParams()
  const current = sections.find((s) => s.id === section) ?? sections[0]
  const View = current.view
  return (
    <div className={SPLIT}>
      <nav className={cn(SIDE_START, 'flex flex-wrap gap-0.5 p-3 md:w-52 md:flex-col')} aria-label="Database sections">
        <div className="mb-2 w-full px-2 text-xs font-semibold uppercase tracking-wide text-muted-foreground">Database</div>
        {sections.map((s) => (
          <NavLink
            key={s.id}
            to={`/database/${s.id}`}
            className={cn('rounded px-2 py-1 text-sm', s.id === current.id ? 'bg-accent text-foreground' : 'text-muted-foreground hover:bg-accent/60 hover:text-foreground')}
          >
            {s.label}
          </NavLink>
        ))}
      </nav>
      <div className={cn(SPLIT_MAIN, 'grid-scroll gap-3 p-5')}>
        <h1 className="text-lg font-semibold">{current.label}</h1>
        <View />
      </div>
    </div>
  )
}
