import { useRef, useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Ban, KeyRound, Trash2, X } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Select } from '@/components/ui/input'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { Badge, ErrorText } from '@/components/ui/misc'
import { banned, deleteFactor, deleteUser, getUser, listFactors, listSessions, revokeSession, sendRecovery, setBan, when } from './users'
import { SIDE_END, useRevealOnPhone } from '@/lib/layout'
import { cn } from '@/lib/utils'

const banDurations = [
  { value: '1h', label: 'for 1 hour' },
  { value: '24h', label: 'for 24 hours' },
  { value: '168h', label: 'for 7 days' },
  { value: '876000h', label: 'until unbanned' },
]

/** UserPanel shows one user (identities, MFA factors, sessions) and acts on them. */
export function UserPanel({ id, onClose }: { id: string; onClose: () => void }) {
  const qc = useQueryClient()
  const user = useQuery({ queryKey: ['auth-user', id], queryFn: () => getUser(id), refetchInterval: 5000 })
  const factors = useQuery({ queryKey: ['auth-user', id, 'factors'], queryFn: () => listFactors(id) })
  const sessions = useQuery({ queryKey: ['auth-user', id, 'sessions'], queryFn: () => listSessions(id), refetchInterval: 5000 })
  const [banFor, setBanFor] = useState('24h')
  const [confirm, setConfirm] = useState<'ban' | 'delete' | null>(null)
  const [note, setNote] = useState('')
  const refresh = () => {
    qc.invalidateQueries({ queryKey: ['auth-user', id] })
    qc.invalidateQueries({ queryKey: ['auth-users'] })
  }
  const ban = useMutation({ mutationFn: (d: string) => setBan(id, d), onSuccess: () => (setConfirm(null), refresh()) })
  const recover = useMutation({ mutationFn: (email: string) => sendRecovery(email), onSuccess: () => setNote('A password recovery mail was sent.') })
  const remove = useMutation({ mutationFn: () => deleteUser(id), onSuccess: () => (refresh(), onClose()) })
  const dropFactor = useMutation({ mutationFn: (fid: string) => deleteFactor(id, fid), onSuccess: refresh })
  const revoke = useMutation({ mutationFn: (sid: string) => revokeSession(id, sid), onSuccess: refresh })
  const u = user.data
  const panel = useRef<HTMLElement>(null)
  // Once more when the user has loaded: the panel is taller then.
  useRevealOnPhone(panel, user.data ? id : '')
  return (
    <aside ref={panel} className={cn(SIDE_END, 'grid-scroll flex flex-col gap-3 p-4 text-sm md:w-[26rem]')} aria-label="User">
      <div className="flex items-start gap-2">
        <div className="min-w-0 flex-1">
          <div className="truncate font-semibold" data-testid="user-title">{u?.email || u?.phone || '(anonymous)'}</div>
          <div className="font-mono text-[10px] text-muted-foreground">{id}</div>
        </div>
        <Button variant="ghost" size="icon" aria-label="Close user" onClick={onClose}>
          <X />
        </Button>
      </div>
      <ErrorText error={user.error} />
      {u && (
        <>
          <dl className="grid grid-cols-[8rem_1fr] gap-x-2 gap-y-1 text-xs">
            <dt className="text-muted-foreground">Role</dt>
            <dd>{u.role || '—'}</dd>
            <dt className="text-muted-foreground">Created</dt>
            <dd>{when(u.created_at)}</dd>
            <dt className="text-muted-foreground">Last sign-in</dt>
            <dd>{when(u.last_sign_in_at)}</dd>
            <dt className="text-muted-foreground">Email confirmed</dt>
            <dd>{when(u.email_confirmed_at)}</dd>
            <dt className="text-muted-foreground">Banned until</dt>
            <dd data-testid="banned-until">{banned(u) ? when(u.banned_until) : 'not banned'}</dd>
          </dl>
          <div className="flex flex-wrap gap-2">
            {u.email && (
              <Button variant="outline" size="sm" disabled={recover.isPending} onClick={() => recover.mutate(u.email!)}>
                <KeyRound /> Send password recovery
              </Button>
            )}
            {banned(u) ? (
              <Button variant="outline" size="sm" disabled={ban.isPending} onClick={() => ban.mutate('none')}>
                Unban user
              </Button>
            ) : (
              <Button variant="outline" size="sm" onClick={() => setConfirm('ban')}>
                <Ban /> Ban user
              </Button>
            )}
            <Button variant="destructive" size="sm" onClick={() => setConfirm('delete')}>
              <Trash2 /> Delete user
            </Button>
          </div>
          {note && <p className="text-xs text-primary">{note}</p>}
          <ErrorText error={recover.error || (confirm ? null : ban.error)} />

          <section>
            <h2 className="mb-1 text-xs font-semibold uppercase text-muted-foreground">Identities</h2>
            <ul className="flex flex-col gap-1" aria-label="Identities">
              {(u.identities ?? []).map((i) => (
                <li key={i.identity_id ?? i.id} className="flex items-center gap-2 text-xs">
                  <Badge>{i.provider}</Badge> <span className="truncate">{i.email ?? i.id}</span>
                  <span className="ml-auto text-muted-foreground">{when(i.last_sign_in_at)}</span>
                </li>
              ))}
              {(u.identities ?? []).length === 0 && <li className="text-xs text-muted-foreground">None.</li>}
            </ul>
          </section>
          <section>
            <h2 className="mb-1 text-xs font-semibold uppercase text-muted-foreground">MFA factors</h2>
            <ErrorText error={factors.error || dropFactor.error} />
            <ul className="flex flex-col gap-1" aria-label="MFA factors">
              {(factors.data ?? []).map((f) => (
                <li key={f.id} className="flex items-center gap-2 text-xs">
                  <Badge>{f.factor_type}</Badge> {f.friendly_name || f.id.slice(0, 8)} <Badge tone={f.status === 'verified' ? 'ok' : 'warn'}>{f.status}</Badge>
                  <Button className="ml-auto" variant="ghost" size="sm" onClick={() => dropFactor.mutate(f.id)}>
                    Remove
                  </Button>
                </li>
              ))}
              {factors.data?.length === 0 && <li className="text-xs text-muted-foreground">None.</li>}
            </ul>
          </section>
          <section>
            <div className="mb-1 flex items-center">
              <h2 className="text-xs font-semibold uppercase text-muted-foreground">Sessions</h2>
              {(sessions.data ?? []).length > 0 && (
                <Button className="ml-auto" variant="ghost" size="sm" onClick={() => revoke.mutate('all')}>
                  Revoke all
                </Button>
              )}
            </div>
            <ErrorText error={sessions.error || revoke.error} />
            <ul className="flex flex-col gap-1" aria-label="Sessions">
              {(sessions.data ?? []).map((s) => (
                <li key={s.id} className="flex items-center gap-2 text-xs" data-testid="auth-session">
                  <div className="min-w-0 flex-1">
                    <div className="truncate">{s.user_agent || 'unknown client'}</div>
                    <div className="text-muted-foreground">
                      {s.ip || '—'} · {s.aal} · since {when(s.created_at)}
                    </div>
                  </div>
                  <Button variant="ghost" size="sm" onClick={() => revoke.mutate(s.id)}>
                    Revoke
                  </Button>
                </li>
              ))}
              {sessions.data?.length === 0 && <li className="text-xs text-muted-foreground">No live session.</li>}
            </ul>
          </section>
        </>
      )}
      {confirm === 'ban' && u && (
        <ConfirmDialog
          open
          title={`Ban ${u.email || u.id}?`}
          description="A banned user cannot sign in or refresh a session. The change is written to the audit log."
          confirm="Ban user"
          pending={ban.isPending}
          error={ban.error}
          onConfirm={() => ban.mutate(banFor)}
          onCancel={() => setConfirm(null)}
        >
          <Select aria-label="Ban duration" value={banFor} onChange={(e) => setBanFor(e.target.value)}>
            {banDurations.map((d) => (
              <option key={d.value} value={d.value}>
                {d.label}
              </option>
            ))}
          </Select>
        </ConfirmDialog>
      )}
      {confirm === 'delete' && u && (
        <ConfirmDialog
          open
          title={`Delete ${u.email || u.id}?`}
          description="The user, their identities, factors and sessions are deleted for good. The change is written to the audit log."
          confirm="Delete user"
          pending={remove.isPending}
          error={remove.error}
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirm(null)}
        />
      )}
    </aside>
  )
}
