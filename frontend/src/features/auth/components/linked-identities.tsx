import { useQuery, useQueryClient } from '@tanstack/react-query'
import type { UserIdentity } from '@supabase/supabase-js'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { supabase } from '@/lib/supabase'
import { providerLabel, unlinkMessage, useAuthProviders, type SignInProvider } from '../api/providers'
import { ProviderIcon } from './provider-buttons'

const identitiesKey = ['identities'] as const

/**
 * LinkedIdentities lists the ways the user signs in (email, Google,
 * Apple…), unlinks one (the server keeps at least one), and links a
 * switched-on provider not linked yet.
 */
export function LinkedIdentities() {
  const qc = useQueryClient()
  const { data: identities = [], isLoading } = useQuery({
    queryKey: identitiesKey,
    queryFn: async () => {
      const { data, error } = await supabase().auth.getUserIdentities()
      if (error) throw error
      return data.identities
    },
  })
  const { data: providers = [] } = useAuthProviders()

  const unlink = async (identity: UserIdentity) => {
    const { error } = await supabase().auth.unlinkIdentity(identity)
    if (error) {
      toast.error(`Could not unlink ${providerLabel(identity.provider)}`, { description: unlinkMessage(error) })
      return
    }
    toast.success(`${providerLabel(identity.provider)} unlinked`)
    // The session's copy of the user still lists the identity until refreshed.
    await supabase().auth.refreshSession()
    void qc.invalidateQueries({ queryKey: identitiesKey })
  }
  const link = async (provider: SignInProvider) => {
    const { error } = await supabase().auth.linkIdentity({ provider, options: { redirectTo: `${window.location.origin}/profile` } })
    if (error) toast.error(`Could not link ${providerLabel(provider)}`, { description: unlinkMessage(error) })
  }
  const linkable = providers.filter((p) => !identities.some((i) => i.provider === p))

  return (
    <Card data-testid="linked-identities">
      <CardHeader>
        <CardTitle className="text-xl">Sign-in methods</CardTitle>
        <CardDescription>The accounts you can sign in to Backline with.</CardDescription>
      </CardHeader>
      <CardContent className="grid grid-cols-1 gap-3">
        {isLoading && <p className="text-sm text-muted-foreground">Loading…</p>}
        {identities.map((i) => (
          <div key={i.identity_id} className="flex items-center gap-3 rounded-md border border-border p-3">
            <span className="flex size-5 items-center justify-center [&_svg]:size-5">
              <ProviderIcon provider={i.provider} />
            </span>
            <div className="min-w-0 flex-1">
              <p className="text-sm font-medium">{providerLabel(i.provider)}</p>
              {typeof i.identity_data?.email === 'string' && <p className="truncate text-xs text-muted-foreground">{i.identity_data.email}</p>}
            </div>
            <Button type="button" variant="outline" size="sm" disabled={identities.length <= 1} onClick={() => void unlink(i)}>
              Unlink
            </Button>
          </div>
        ))}
        {linkable.map((p) => (
          <Button key={p} type="button" variant="outline" onClick={() => void link(p)}>
            <ProviderIcon provider={p} />
            Link {providerLabel(p)}
          </Button>
        ))}
      </CardContent>
    </Card>
  )
}
