import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { ForgotPasswordForm } from '@/features/auth/components/recovery-forms'

/** ForgotPasswordPage requests a recovery email. */
export default function ForgotPasswordPage() {
  return (
    <div className="mx-auto max-w-md py-6">
      <Card>
        <CardHeader>
          <CardTitle as="h1" className="text-2xl">Forgot your password?</CardTitle>
          <CardDescription>Enter your email and we'll send you a link to reset it.</CardDescription>
        </CardHeader>
        <CardContent>
          <ForgotPasswordForm />
        </CardContent>
      </Card>
    </div>
  )
}
