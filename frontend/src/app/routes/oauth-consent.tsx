import { Link, useSearchParams } from 'react-router'
import { Button } from '@/components/ui/button'
import { Card, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card'
import { PageFallback } from '@/components/layouts/app-shell'
import { useAuthStore } from '@/lib/auth'
import { OAuthConsent } from '@/features/connected-apps/components/oauth-consent'
import { consentPath } from '@/features/connected-apps/lib/consent'

/**
 * OAuthConsentPage is where Backline's OAuth server sends a fan when
 * another app asks to "Sign in with Backline" (?authorization_id=…). A
 * visitor signs in first and comes back here.
 */
export default function OAuthConsentPage() {
  const [params] = useSearchParams()
  const id = params.get('authorization_id')
  const user = useAuthStore((s) => s.user)
  const loading = useAuthStore((s) => s.loading)
  let body: React.ReactNode
  if (!id) {
    body = (
      <Card>
        <CardHeader>
          <CardTitle as="h1" className="text-2xl">Request not available</CardTitle>
          <CardDescription>This link is missing its request. Go back to the app and try again.</CardDescription>
        </CardHeader>
      </Card>
    )
  } else if (loading) {
    body = <PageFallback />
  } else if (!user) {
    body = (
      <Card>
        <CardHeader>
          <CardTitle as="h1" className="text-2xl">Sign in to continue</CardTitle>
          <CardDescription>An app wants to use your Backline account. Sign in to see what it asks for.</CardDescription>
        </CardHeader>
        <CardFooter>
          <Button asChild className="w-full">
            <Link to={`/login?next=${encodeURIComponent(consentPath(id))}`}>Sign in</Link>
          </Button>
        </CardFooter>
      </Card>
    )
  } else {
    body = <OAuthConsent authorizationId={id} />
  }
  return <div className="mx-auto w-full max-w-md py-6">{body}</div>
}
