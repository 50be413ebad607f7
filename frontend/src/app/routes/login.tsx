import { Navigate, useSearchParams } from 'react-router'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { useAuthStore, useRoleSettled } from '@/lib/auth'
import { LoginForm } from '@/features/auth/components/login-form'
import { ProviderButtons } from '@/features/auth/components/provider-buttons'
import { safeNext } from '@/features/connected-apps/lib/consent'

/**
 * LoginPage signs users in (password, or Google/Apple when the server offers
 * them); a signed-in user with a role goes to their dashboard, one without
 * (a provider sign-up) to the role chooser, or either back to `?next=`.
 */
export default function LoginPage() {
  const user = useAuthStore((s) => s.user)
  const role = useAuthStore((s) => s.role)
  const settled = useRoleSettled()
  // ?next= returns to a page of this site after signing in (the OAuth consent page).
  const next = safeNext(useSearchParams()[0].get('next'))
  if (user && next && (role || settled)) return <Navigate to={next} replace />
  if (user && role) return <Navigate to={`/dashboard/${role}`} replace />
  if (user && settled && !role) return <Navigate to="/register" replace />
  return (
    <div className="mx-auto max-w-md py-6">
      <Card>
        <CardHeader>
          <CardTitle as="h1" className="text-2xl">Welcome back</CardTitle>
          <CardDescription>Sign in to your Backline account</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4">
          <ProviderButtons />
          <LoginForm />
        </CardContent>
      </Card>
    </div>
  )
}
