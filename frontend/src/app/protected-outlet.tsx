import { Link, Navigate, Outlet, useLocation } from 'react-router'
import { Lock, ShieldAlert, UserX } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { PageFallback } from '@/components/layouts/app-shell'
import { useSignOut } from '@/components/layouts/use-sign-out'
import { dashboardPath, type Role } from '@/config/nav'
import { useSuspension } from '@/hooks/use-suspension'
import { useAuthStore, useRoleSettled } from '@/lib/auth'

// The checks of a protected route, loaded with the first protected page
// (app/guards.tsx's RequireAuth), not with the home page.

function Screen({ icon, title, children }: { icon: React.ReactNode; title: string; children: React.ReactNode }) {
  return (
    <div className="mx-auto grid grid-cols-1 max-w-md justify-items-center gap-4 py-20 text-center">
      {icon}
      <h1 className="text-2xl font-bold">{title}</h1>
      {children}
    </div>
  )
}

/** AuthRequired is shown for protected routes without a session. */
export function AuthRequired() {
  return (
    <Screen icon={<Lock className="size-12 text-primary" />} title="Authentication Required">
      <p className="text-muted-foreground">Please sign in to access this page.</p>
      <Button asChild>
        <Link to="/login">Go to Login</Link>
      </Button>
    </Screen>
  )
}

/** AccessDenied is shown when the role does not match a role-restricted route. */
export function AccessDenied() {
  const role = useAuthStore((s) => s.role)
  return (
    <Screen icon={<ShieldAlert className="size-12 text-amber-500" />} title="Access Denied">
      <p className="text-muted-foreground">You don't have permission to access this page.</p>
      <Button asChild>
        <Link to={dashboardPath(role)}>Go to Dashboard</Link>
      </Button>
    </Screen>
  )
}

function AccountSuspended({ reason }: { reason: string | null }) {
  const onSignOut = useSignOut()
  return (
    <Screen icon={<UserX className="size-12 text-red-500" />} title="Account Suspended">
      <p className="text-muted-foreground">Your account has been suspended.</p>
      <p className="rounded-md border border-border bg-card p-3 text-sm">Reason: {reason || 'No reason provided'}</p>
      <div className="flex gap-2">
        <Button asChild variant="outline">
          <Link to="/">Go Home</Link>
        </Button>
        <Button variant="destructive" onClick={() => void onSignOut()}>
          Sign Out
        </Button>
      </div>
    </Screen>
  )
}

/** ProtectedOutlet renders a protected route's page, or the screen that says why not (admin passes every role check). */
export default function ProtectedOutlet({ roles }: { roles?: Role[] }) {
  const user = useAuthStore((s) => s.user)
  const loading = useAuthStore((s) => s.loading)
  const role = useAuthStore((s) => s.role)
  const settled = useRoleSettled()
  const suspension = useSuspension(user?.id)
  const { key } = useLocation()
  const signedOutHere = useAuthStore((s) => s.signedOutFrom !== null && s.signedOutFrom === key)
  if (loading) return <PageFallback />
  // Signing out from this page leaves for home: it does not ask for a sign-in on the way.
  if (!user && signedOutHere) return <Navigate to="/" replace />
  if (!user) return <AuthRequired />
  // The role and the suspension come together, from the app shell's bootstrap.
  if (!settled || suspension.isLoading) return <PageFallback />
  if (suspension.data?.suspended) return <AccountSuspended reason={suspension.data.reason} />
  if (roles && role !== 'admin' && (!role || !roles.includes(role))) return <AccessDenied />
  return <Outlet />
}
