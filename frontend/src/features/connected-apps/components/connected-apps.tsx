import { AppWindow } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { useConnectedApps, useRevokeApp } from '../api/grants'
import { scopeList } from '../lib/consent'

/**
 * ConnectedApps lists the apps the user signed in to with Backline and
 * what each may see, with Revoke: the app is signed out at once and must
 * ask again. Nothing is shown while the server's OAuth provider is off.
 */
export function ConnectedApps() {
  const { data: grants, isLoading, isError } = useConnectedApps()
  const revoke = useRevokeApp()
  if (grants === null) return null
  const onRevoke = (clientId: string, name: string) =>
    revoke.mutate(clientId, {
      onSuccess: () => toast.success(`${name} disconnected`),
      onError: (e) => toast.error(`Could not disconnect ${name}`, { description: e.message }),
    })
  return (
    <Card data-testid="connected-apps">
      <CardHeader>
        <CardTitle as="h2" className="text-xl">Connected apps</CardTitle>
        <CardDescription>Apps you signed in to with your Backline account.</CardDescription>
      </CardHeader>
      <CardContent className="grid grid-cols-1 gap-3">
        {isLoading && <p className="text-sm text-muted-foreground">Loading…</p>}
        {isError && <p className="text-sm text-destructive">Could not load your connected apps.</p>}
        {grants?.length === 0 && <p className="text-sm text-muted-foreground">No apps are connected to your account.</p>}
        {grants?.map((g) => {
          const name = g.client.name || 'Unnamed app'
          return (
            <div key={g.client.id} className="flex flex-wrap items-center gap-3 rounded-md border border-border p-3" data-testid="connected-app">
              <AppWindow className="size-5 shrink-0 text-muted-foreground" aria-hidden />
              <div className="min-w-0 flex-1">
                <p className="truncate text-sm font-medium">{name}</p>
                <p className="text-xs text-muted-foreground">
                  {scopeList(g.scopes)
                    .map((s) => s.label)
                    .join(' · ')}
                </p>
                <p className="text-xs text-muted-foreground">Connected {new Date(g.granted_at).toLocaleDateString()}</p>
              </div>
              <Button type="button" variant="outline" size="sm" disabled={revoke.isPending} onClick={() => onRevoke(g.client.id, name)}>
                Revoke
              </Button>
            </div>
          )
        })}
      </CardContent>
    </Card>
  )
}
