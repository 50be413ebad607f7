import { Navigate } from 'react-router'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { useAuthStore, useRoleSettled } from '@/lib/auth'
import { LoginForm } from '@/features/auth/components/login-form'
import { ProviderButtons } from '@/features/auth/components/provider-buttons'

/**
 * LoginPage signs users in (password, or Google/Apple when the server offers
 * them); a signed-in user with a role goes to their dashboard, one without
 * (a provider sign-up) to the role chooser.
 */
export default function LoginPage() {
  const user = useAuthStore((s) => s.user)
  const role = useAuthStore((s) => s.role)
  const settled = useRoleSettled()
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
