import { NavLink } from 'react-router'
import { cn } from '@/lib/utils'
import { ADMIN_SECTIONS, adminPath, type AdminSection } from '../lib/sections'
import { ActivitySection } from './activity-section'
import { CashoutsSection } from './cashouts-section'
import { SponsorshipsSection } from './sponsorships-section'
import { SystemSection } from './system-section'
import { TracksSection } from './tracks-section'
import { TransactionsSection } from './transactions-section'
import { UsersSection } from './users-section'
import { VerificationsSection } from './verifications-section'

const sections: Record<AdminSection, () => React.ReactNode> = {
  users: UsersSection,
  activities: ActivitySection,
  tracks: TracksSection,
  cashouts: CashoutsSection,
  verifications: VerificationsSection,
  sponsorships: SponsorshipsSection,
  transactions: TransactionsSection,
  system: SystemSection,
}

/**
 * AdminDashboard is /dashboard/admin: a sub-route per section, each
 * deep-linkable with its filters in the query string. Every figure and
 * action comes from admin functions the database guards; nothing here
 * decides who may do what.
 */
export function AdminDashboard({ section }: { section: AdminSection }) {
  const Section = sections[section]
  return (
    <div>
      <h1 className="text-3xl font-bold">Admin Dashboard</h1>
      <nav aria-label="Admin sections" className="-mx-4 mt-4 overflow-x-auto px-4">
        <ul className="flex min-w-max gap-1 border-b border-border">
          {ADMIN_SECTIONS.map((s) => (
            <li key={s.id}>
              <NavLink
                to={adminPath(s.id)}
                className={() =>
                  cn(
                    '-mb-px inline-block border-b-2 px-3 py-2 text-sm font-medium',
                    s.id === section ? 'border-primary text-foreground' : 'border-transparent text-muted-foreground hover:text-foreground',
                  )
                }
                aria-current={s.id === section ? 'page' : undefined}
              >
                {s.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className="mt-6" data-testid={`admin-section-${section}`}>
        <Section />
      </div>
    </div>
  )
}
