import { useEffect, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { AppWindow, Check, ShieldCheck } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card'
import { supabase } from '@/lib/supabase'
import { consentErrorMessage, readDetails } from '../lib/consent'

/** go sends the browser to the app (a full navigation: it leaves Backline). */
const go = (url: string) => window.location.assign(url)

/**
 * OAuthConsent is the consent step of "Sign in with Backline": which app
 * asks, what it will see, and Allow / Deny. Either answer sends the
 * browser back to the app's registered address, with a code or with
 * access_denied. An app already allowed these permissions goes straight
 * back.
 */
export function OAuthConsent({ authorizationId }: { authorizationId: string }) {
  const [deciding, setDeciding] = useState<'approve' | 'deny' | null>(null)
  const [decisionError, setDecisionError] = useState<string | null>(null)
  const details = useQuery({
    queryKey: ['oauthAuthorization', authorizationId],
    // Opening the request claims it for this user: never refetch it.
    staleTime: Infinity,
    retry: false,
    refetchOnWindowFocus: false,
    queryFn: async () => {
      const { data, error } = await supabase().auth.oauth.getAuthorizationDetails(authorizationId)
      if (error) throw error
      const d = readDetails(data)
      if (!d) throw new Error('This request cannot be shown.')
      return d
    },
  })
  const decision = details.data
  useEffect(() => {
    if (decision?.kind === 'redirect') go(decision.url)
  }, [decision])

  const decide = async (action: 'approve' | 'deny') => {
    setDeciding(action)
    setDecisionError(null)
    const auth = supabase().auth.oauth
    const { data, error } =
      action === 'approve'
        ? await auth.approveAuthorization(authorizationId, { skipBrowserRedirect: true })
        : await auth.denyAuthorization(authorizationId, { skipBrowserRedirect: true })
    const next = data && readDetails(data)
    if (error || next?.kind !== 'redirect') {
      setDeciding(null)
      setDecisionError(error ? consentErrorMessage(error) : 'This request cannot be answered.')
      return
    }
    go(next.url)
  }

  if (details.isLoading || decision?.kind === 'redirect') {
    return <p className="py-10 text-center text-muted-foreground">Loading…</p>
  }
  if (details.isError || !decision) {
    const err = details.error as { code?: string; status?: number; message: string } | null
    return (
      <Card>
        <CardHeader>
          <CardTitle as="h1" className="text-2xl">Request not available</CardTitle>
          <CardDescription>{err ? consentErrorMessage(err) : 'This request cannot be shown.'}</CardDescription>
        </CardHeader>
      </Card>
    )
  }
  const d = decision
  return (
    <Card data-testid="oauth-consent">
      <CardHeader className="items-center text-center">
        {d.logoUri ? (
          <img src={d.logoUri} alt="" className="size-14 rounded-xl border border-border object-cover" />
        ) : (
          <AppWindow className="size-14 text-primary" aria-hidden />
        )}
        <CardTitle as="h1" className="text-2xl leading-tight">
          {d.clientName} wants to use your Backline account
        </CardTitle>
        {d.email && <CardDescription>Signed in as {d.email}</CardDescription>}
      </CardHeader>
      <CardContent className="grid gap-4">
        <div className="grid gap-2">
          <p className="text-sm font-medium">This will allow {d.clientName} to:</p>
          <ul className="grid gap-2" data-testid="oauth-scopes">
            {d.scopes.map((s) => (
              <li key={s.scope} className="flex items-start gap-2 text-sm">
                <Check className="mt-0.5 size-4 shrink-0 text-primary" aria-hidden />
                <span>{s.label}</span>
              </li>
            ))}
          </ul>
        </div>
        <p className="flex items-start gap-2 rounded-md border border-border p-3 text-xs text-muted-foreground">
          <ShieldCheck className="size-4 shrink-0" aria-hidden />
          <span>
            {d.redirectHost ? <>You will be sent back to <strong className="break-all">{d.redirectHost}</strong>. </> : null}
            Backline never shares your password. You can disconnect this app any time under Connected apps on your profile.
          </span>
        </p>
        {d.clientUri && (
          <a href={d.clientUri} target="_blank" rel="noreferrer noopener" className="break-all text-xs text-primary underline-offset-4 hover:underline">
            {d.clientUri}
          </a>
        )}
        {decisionError && (
          <p role="alert" className="text-sm text-destructive">
            {decisionError}
          </p>
        )}
      </CardContent>
      <CardFooter className="grid grid-cols-2 gap-3">
        <Button type="button" variant="outline" disabled={deciding !== null} onClick={() => void decide('deny')}>
          Deny
        </Button>
        <Button type="button" disabled={deciding !== null} onClick={() => void decide('approve')}>
          {deciding === 'approve' ? 'Allowing…' : 'Allow'}
        </Button>
      </CardFooter>
    </Card>
  )
}
