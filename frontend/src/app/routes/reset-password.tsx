import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { PageFallback } from '@/components/layouts/app-shell'
import { useAuthStore } from '@/lib/auth'
import { ResetPasswordForm } from '@/features/auth/components/recovery-forms'

/** ResetPasswordPage sets a new password after the recovery link signed the user in. */
export default function ResetPasswordPage() {
  const loading = useAuthStore((s) => s.loading)
  const session = useAuthStore((s) => s.session)
  if (loading) return <PageFallback />
  return (
    <div className="mx-auto max-w-md py-6">
      <Card>
        <CardHeader>
          <CardTitle as="h1" className="text-2xl">Choose a new password</CardTitle>
          <CardDescription>Use at least 8 characters.</CardDescription>
        </CardHeader>
        <CardContent>
          <ResetPasswordForm hasSession={!!session} />
        </CardContent>
      </Card>
    </div>
  )
}
