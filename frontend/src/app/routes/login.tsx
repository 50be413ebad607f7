import { Navigate } from 'react-router'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { useAuthStore } from '@/lib/auth'
import { LoginForm } from '@/features/auth/components/login-form'

/** LoginPage signs users in; a signed-in user with a role goes to their dashboard. */
export default function LoginPage() {
  const user = useAuthStore((s) => s.user)
  const role = useAuthStore((s) => s.role)
  if (user && role) return <Navigate to={`/dashboard/${role}`} replace />
  return (
    <div className="mx-auto max-w-md py-6">
      <Card>
        <CardHeader>
          <CardTitle as="h1" className="text-2xl">Welcome back</CardTitle>
          <CardDescription>Sign in to your Backline account</CardDescription>
        </CardHeader>
        <CardContent>
          <LoginForm />
        </CardContent>
      </Card>
    </div>
  )
}
