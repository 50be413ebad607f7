import { useParams } from 'react-router'
import { AdminDashboard } from '@/features/admin/components/admin-dashboard'
import { sectionFrom } from '@/features/admin/lib/sections'

/** AdminPage is /dashboard/admin/:section (users when none is given). */
export default function AdminPage() {
  const { section } = useParams()
  return <AdminDashboard section={sectionFrom(section)} />
}
