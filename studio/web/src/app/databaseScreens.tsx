import { lazy } from 'react'
import { Route } from 'react-router'
import { Clock, Cylinder, Inbox, Webhook } from 'lucide-react'

// The Database, Cron, Queues and Database Webhooks screens, each its own
// chunk; App adds their links and routes.
const Database = lazy(() => import('@/features/database/Database'))
const Cron = lazy(() => import('@/features/cron/Cron'))
const Queues = lazy(() => import('@/features/queues/Queues'))
const Webhooks = lazy(() => import('@/features/webhooks/Webhooks'))

export const databaseNav = [
  { to: '/database', label: 'Database', icon: Cylinder },
  { to: '/cron', label: 'Cron', icon: Clock },
  { to: '/queues', label: 'Queues', icon: Inbox },
  { to: '/webhooks', label: 'Webhooks', icon: Webhook },
]

export const databaseRoutes = (
  <>
    <Route path="/database" element={<Database />} />
    <Route path="/database/:section" element={<Database />} />
    <Route path="/cron" element={<Cron />} />
    <Route path="/queues" element={<Queues />} />
    <Route path="/queues/:queue" element={<Queues />} />
    <Route path="/webhooks" element={<Webhooks />} />
  </>
)
