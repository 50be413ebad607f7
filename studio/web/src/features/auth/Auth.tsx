import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { ChevronLeft, ChevronRight, MailPlus, UserPlus } from 'lucide-react'
import { api } from '@/lib/api'
import { cn } from '@/lib/utils'
import { Button } from '@/components/ui/button'
import { Input, Label } from '@/components/ui/input'
import { Dialog, DialogContent } from '@/components/ui/dialog'
import { Badge, Card, ErrorText, Tabs } from '@/components/ui/misc'
import { UserPanel } from './UserPanel'
import { banned, createUser, inviteUser, listUsers, perPage, when, type User } from './users'
import { SPLIT, SPLIT_MAIN } from '@/lib/layout'

type Tab = 'users' | 'providers' | 'mailbox'

/** Auth is the users screen, the provider settings in force and the dev mailbox. */
export default function Auth() {
  const [tab, setTab] = useState<Tab>('users')
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="px-4 pt-3">
        <h1 className="mb-2 text-base font-semibold">Authentication</h1>
        <Tabs
          value={tab}
          onChange={setTab}
          items={[
            { value: 'users', label: 'Users' },
            { value: 'providers', label: 'Providers' },
            { value: 'mailbox', label: 'Mailbox' },
          ]}
        />
      </div>
      {tab === 'users' && <Users />}
      {tab === 'providers' && <Providers />}
      {tab === 'mailbox' && <Mailbox />}
    </div>
  )
}

function status(u: User) {
  if (banned(u)) return <Badge tone="bad">banned</Badge>
  if (u.invited_at && !u.email_confirmed_at) return <Badge tone="warn">invited</Badge>
  if (u.email && !u.email_confirmed_at) return <Badge tone="warn">unconfirmed</Badge>
  if (u.is_anonymous) return <Badge>anonymous</Badge>
  return <Badge tone="ok">active</Badge>
}

function Users() {
  const [filter, setFilter] = useState('')
  const [page, setPage] = useState(1)
  const [selected, setSelected] = useState<string | null>(null)
  const [adding, setAdding] = useState<'create' | 'invite' | null>(null)
  const users = useQuery({ queryKey: ['auth-users', filter, page], queryFn: () => listUsers(page, filter), placeholderData: (p) => p })
  const total = users.data?.total ?? 0
  const first = total === 0 ? 0 : (page - 1) * perPage + 1
  const last = Math.min(total, page * perPage)
  return (
    <div className={SPLIT}>
      <div className={cn(SPLIT_MAIN, 'gap-2 p-4')}>
        <div className="flex flex-wrap items-center gap-2">
          <Input
            className="w-full sm:max-w-sm sm:flex-1"
            placeholder="Search by email or name"
            aria-label="Search users"
            value={filter}
            onChange={(e) => (setFilter(e.target.value), setPage(1))}
          />
          <span className="whitespace-nowrap text-xs text-muted-foreground" data-testid="user-count">
            {first}–{last} of {total}
          </span>
          <Button variant="outline" size="icon" aria-label="Previous page" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            <ChevronLeft />
          </Button>
          <Button variant="outline" size="icon" aria-label="Next page" disabled={last >= total} onClick={() => setPage(page + 1)}>
            <ChevronRight />
          </Button>
          <div className="ml-auto flex gap-2">
            <Button variant="outline" onClick={() => setAdding('invite')}>
              <MailPlus /> Invite user
            </Button>
            <Button onClick={() => setAdding('create')}>
              <UserPlus /> Add user
            </Button>
          </div>
        </div>
        <ErrorText error={users.error} />
        <div className="grid-scroll flex-1 rounded-md border border-border">
          <table className="w-full text-sm" aria-label="Users">
            <thead className="sticky top-0 bg-panel text-left text-xs text-muted-foreground">
              <tr>
                <th className="px-3 py-2 font-medium">Email or phone</th>
                <th className="px-3 py-2 font-medium">Provider</th>
                <th className="px-3 py-2 font-medium">Created</th>
                <th className="px-3 py-2 font-medium">Last sign-in</th>
                <th className="px-3 py-2 font-medium">Status</th>
              </tr>
            </thead>
            <tbody>
              {(users.data?.users ?? []).map((u) => (
                <tr
                  key={u.id}
                  className={cn('cursor-pointer border-t border-border', selected === u.id ? 'bg-accent' : 'hover:bg-accent/50')}
                  onClick={() => setSelected(u.id)}
                >
                  <td className="px-3 py-1.5">
                    {u.email || u.phone || <span className="text-muted-foreground">(anonymous)</span>}
                    <div className="font-mono text-[10px] text-muted-foreground">{u.id}</div>
                  </td>
                  <td className="px-3 py-1.5 text-xs">{(u.app_metadata?.providers ?? [u.app_metadata?.provider]).filter(Boolean).join(', ') || '—'}</td>
                  <td className="px-3 py-1.5 text-xs">{when(u.created_at)}</td>
                  <td className="px-3 py-1.5 text-xs">{when(u.last_sign_in_at)}</td>
                  <td className="px-3 py-1.5">{status(u)}</td>
                </tr>
              ))}
              {users.data && users.data.users.length === 0 && (
                <tr>
                  <td colSpan={5} className="px-3 py-4 text-center text-xs text-muted-foreground">
                    No user matches.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </div>
      {selected && <UserPanel key={selected} id={selected} onClose={() => setSelected(null)} />}
      {adding && <AddUser mode={adding} onClose={() => setAdding(null)} onDone={(u) => (setAdding(null), setSelected(u.id))} />}
    </div>
  )
}

function AddUser({ mode, onClose, onDone }: { mode: 'create' | 'invite'; onClose: () => void; onDone: (u: User) => void }) {
  const qc = useQueryClient()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [confirm, setConfirm] = useState(true)
  const save = useMutation({
    mutationFn: () => (mode === 'invite' ? inviteUser(email) : createUser({ email, password: password || undefined, email_confirm: confirm })),
    onSuccess: (u) => (qc.invalidateQueries({ queryKey: ['auth-users'] }), onDone(u)),
  })
  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent
        title={mode === 'invite' ? 'Invite a user' : 'Add a user'}
        description={mode === 'invite' ? 'An invitation mail with a sign-in link goes to the address.' : 'The user can sign in at once with this password when the address is confirmed.'}
      >
        <form
          className="flex flex-col gap-3"
          onSubmit={(e) => {
            e.preventDefault()
            save.mutate()
          }}
        >
          <Label className="flex flex-col gap-1">
            Email
            <Input type="email" required autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />
          </Label>
          {mode === 'create' && (
            <>
              <Label className="flex flex-col gap-1">
                Password
                <Input type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
              </Label>
              <label className="flex items-center gap-2 text-sm">
                <input type="checkbox" checked={confirm} onChange={(e) => setConfirm(e.target.checked)} /> Confirm the email address now
              </label>
            </>
          )}
          <ErrorText error={save.error} />
          <div className="flex justify-end gap-2">
            <Button type="button" variant="outline" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={save.isPending}>
              {mode === 'invite' ? 'Send invitation' : 'Create user'}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  )
}

type Settings = { external: Record<string, boolean>; disable_signup: boolean; mailer_autoconfirm: boolean; phone_autoconfirm: boolean; saml_enabled: boolean; passkeys_enabled?: boolean }

function Providers() {
  const s = useQuery({ queryKey: ['auth-settings'], queryFn: () => api<Settings>('/auth/v1/settings') })
  const d = s.data
  return (
    <div className="grid-scroll flex flex-1 flex-col gap-3 p-4">
      <p className="text-xs text-muted-foreground">
        The settings in force, as GoTrue's <code>/auth/v1/settings</code> reports them. They come from the environment (<code>GOTRUE_*</code> variables): change them there and restart.
      </p>
      <ErrorText error={s.error} />
      {d && (
        <div className="grid grid-cols-2 gap-3">
          <Card>
            <h2 className="mb-2 text-sm font-semibold">Sign-in methods</h2>
            <ul className="flex flex-col gap-1 text-sm" aria-label="Providers">
              {Object.entries(d.external)
                .sort(([a, x], [b, y]) => Number(y) - Number(x) || a.localeCompare(b))
                .map(([name, on]) => (
                  <li key={name} className="flex items-center justify-between" data-testid={`provider-${name}`}>
                    {name} {on ? <Badge tone="ok">enabled</Badge> : <Badge>disabled</Badge>}
                  </li>
                ))}
            </ul>
          </Card>
          <Card>
            <h2 className="mb-2 text-sm font-semibold">Policies</h2>
            <ul className="flex flex-col gap-1 text-sm">
              {[
                ['Sign-ups', !d.disable_signup],
                ['Email confirmed without a mail', d.mailer_autoconfirm],
                ['Phone confirmed without an SMS', d.phone_autoconfirm],
                ['SAML single sign-on', d.saml_enabled],
                ['Passkeys', !!d.passkeys_enabled],
              ].map(([k, v]) => (
                <li key={String(k)} className="flex items-center justify-between">
                  {k} {v ? <Badge tone="ok">on</Badge> : <Badge>off</Badge>}
                </li>
              ))}
            </ul>
          </Card>
        </div>
      )}
    </div>
  )
}

type Message = { id: string; to: string; subject?: string; channel: string; type: string; confirmation_url?: string; token?: string; sent_at: string; body: string }

function Mailbox() {
  const [to, setTo] = useState('')
  const [open, setOpen] = useState<string | null>(null)
  // The mailbox keeps the newest messages only: all are read, and filtered here by any part of the recipient.
  const m = useQuery({
    queryKey: ['auth-mailbox'],
    queryFn: () => api<{ messages: Message[] }>('/auth/v1/admin/dev/mailbox'),
    refetchInterval: 3000,
    retry: false,
  })
  const shown = (m.data?.messages ?? []).filter((x) => x.to.toLowerCase().includes(to.trim().toLowerCase()))
  const off = m.error && 'status' in m.error && m.error.status === 404
  return (
    <div className="grid-scroll flex flex-1 flex-col gap-2 p-4">
      <Input className="max-w-sm" placeholder="Filter by recipient" aria-label="Filter mailbox" value={to} onChange={(e) => setTo(e.target.value)} />
      {off ? <p className="text-sm text-muted-foreground">The dev mailbox is kept under <code>basalt dev</code> only: here mail goes out by SMTP.</p> : <ErrorText error={m.error} />}
      {shown.map((x) => (
        <Card key={x.id} className="flex flex-col gap-1 py-2" data-testid="mail">
          <button className="flex items-center gap-2 text-left text-sm" onClick={() => setOpen(open === x.id ? null : x.id)}>
            <Badge>{x.type}</Badge>
            <span className="font-medium">{x.to}</span>
            <span className="truncate text-muted-foreground">{x.subject}</span>
            <span className="ml-auto shrink-0 text-xs text-muted-foreground">{when(x.sent_at)}</span>
          </button>
          {open === x.id && (
            <div className="flex flex-col gap-1 text-xs">
              {x.token && (
                <div>
                  Code: <code className="font-mono">{x.token}</code>
                </div>
              )}
              {x.confirmation_url && (
                <div className="break-all">
                  Link: <code className="font-mono">{x.confirmation_url}</code>
                </div>
              )}
              {/* The mail is shown as text: its HTML is not rendered into Studio's page. */}
              <pre className="max-h-60 overflow-auto whitespace-pre-wrap rounded bg-panel p-2 font-mono text-[11px]">{x.body}</pre>
            </div>
          )}
        </Card>
      ))}
      {m.data && shown.length === 0 && <p className="text-xs text-muted-foreground">{m.data.messages.length ? 'No mail to such a recipient.' : 'No mail yet.'}</p>}
    </div>
  )
}
