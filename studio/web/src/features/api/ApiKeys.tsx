import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Plus } from 'lucide-react'
import { api } from '@/lib/api'
import { Button } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { FormDialog } from '@/components/ui/form-dialog'
import { Input, Label } from '@/components/ui/input'
import { Badge, Card, ErrorText } from '@/components/ui/misc'
import { Secret } from './Secret'

type ApiKey = { id: string; name: string; type: 'publishable' | 'secret'; prefix: string; created_at: string; revoked_at: string | null }
type NewKey = ApiKey & { api_key: string }

/**
 * ApiKeys lists the project's API keys (never the keys themselves), creates
 * and rotates publishable ones, showing the new key once, and revokes any.
 */
export function ApiKeys() {
  const qc = useQueryClient()
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => api<ApiKey[]>('/api/keys') })
  const [creating, setCreating] = useState(false)
  const [name, setName] = useState('')
  const [rotating, setRotating] = useState<ApiKey | null>(null)
  const [revoking, setRevoking] = useState<ApiKey | null>(null)
  const [shown, setShown] = useState<NewKey | null>(null)
  const refresh = () => qc.invalidateQueries({ queryKey: ['api-keys'] })
  const create = useMutation({
    mutationFn: () => api<NewKey>('/api/keys', { method: 'POST', json: { type: 'publishable', name } }),
    onSuccess: (k) => {
      setCreating(false)
      setName('')
      setShown(k)
      refresh()
    },
  })
  const rotate = useMutation({
    mutationFn: (k: ApiKey) => api<NewKey>(`/api/keys/${k.id}/rotate`, { method: 'POST' }),
    onSuccess: (k) => {
      setRotating(null)
      setShown(k)
      refresh()
    },
  })
  const revoke = useMutation({
    mutationFn: (k: ApiKey) => api<ApiKey>(`/api/keys/${k.id}`, { method: 'DELETE' }),
    onSuccess: () => {
      setRevoking(null)
      setShown(null)
      refresh()
    },
  })
  return (
    <Card className="flex flex-col gap-3">
      <div className="flex items-center gap-3">
        <div className="text-sm font-medium">API keys</div>
        <Button className="ml-auto" size="sm" onClick={() => setCreating(true)}>
          <Plus /> Create publishable key
        </Button>
      </div>
      <p className="text-xs text-muted-foreground">
        A revoked key is refused at once on every node. Secret keys are created and rotated on the host with <code>basalt keys api</code>.
      </p>
      <ErrorText error={keys.error} />
      {shown && (
        <div className="flex flex-col gap-1 rounded border border-warning/50 p-3" data-testid="new-api-key">
          <Secret label={`New ${shown.type} key ${shown.name}`} value={shown.api_key} testId="key-new" />
          <span className="text-xs text-warning">Copy it now: it is not shown again.</span>
        </div>
      )}
      <table className="w-full text-xs" aria-label="API keys">
        <thead>
          <tr className="border-b border-border text-left text-muted-foreground">
            <th className="py-1">Name</th>
            <th className="py-1">Type</th>
            <th className="py-1">Key</th>
            <th className="py-1">Created</th>
            <th className="py-1">State</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(keys.data ?? []).map((k) => (
            <tr key={k.id} className="border-b border-border last:border-0" data-testid={`api-key-${k.name}`}>
              <td className="py-1 font-mono">{k.name}</td>
              <td className="py-1">{k.type}</td>
              <td className="py-1 font-mono text-muted-foreground">{k.prefix}…</td>
              <td className="py-1 text-muted-foreground">{new Date(k.created_at).toLocaleString()}</td>
              <td className="py-1">{k.revoked_at ? <Badge tone="bad">revoked {new Date(k.revoked_at).toLocaleString()}</Badge> : <Badge tone="ok">valid</Badge>}</td>
              <td className="py-1 text-right">
                {!k.revoked_at && (
                  <span className="inline-flex gap-1">
                    {k.type === 'publishable' && (
                      <Button variant="outline" size="sm" onClick={() => setRotating(k)}>
                        Rotate
                      </Button>
                    )}
                    <Button variant="outline" size="sm" onClick={() => setRevoking(k)}>
                      Revoke
                    </Button>
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {creating && (
        <FormDialog
          title="Create a publishable key"
          description="A new key for the anon role, valid at once on every node. It is shown once."
          submit="Create key"
          pending={create.isPending}
          error={create.error}
          onSubmit={() => create.mutate()}
          onClose={() => setCreating(false)}
        >
          <Label htmlFor="api-key-name">Name (lower-case letters, digits, underscores)</Label>
          <Input id="api-key-name" value={name} autoFocus onChange={(e) => setName(e.target.value)} />
        </FormDialog>
      )}
      <ConfirmDialog
        open={!!rotating}
        title={`Rotate ${rotating?.name ?? ''}?`}
        description="A new key takes its place and the old one is refused from now on, by every client that still holds it."
        confirm="Rotate key"
        pending={rotate.isPending}
        error={rotate.error}
        onConfirm={() => rotating && rotate.mutate(rotating)}
        onCancel={() => setRotating(null)}
      />
      <ConfirmDialog
        open={!!revoking}
        title={`Revoke ${revoking?.name ?? ''}?`}
        description="Every request with this key is refused from now on, on every node. This cannot be undone."
        confirm="Revoke key"
        pending={revoke.isPending}
        error={revoke.error}
        onConfirm={() => revoking && revoke.mutate(revoking)}
        onCancel={() => setRevoking(null)}
      />
    </Card>
  )
}
