import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { Link } from 'react-router'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Skeleton } from '@/components/ui/skeleton'
import type { Role } from '@/config/nav'
import { useAuthStore } from '@/lib/auth'
import { formatNaira } from '@/lib/format'
import { useAdminAction } from '../api/rpc'
import { adjustWallet, setUserRole, suspendUser, unsuspendUser, userDetailQuery } from '../api/users'
import { formatDateTime } from '../lib/dates'
import { adminVerb } from '../lib/describe'
import { adminPath } from '../lib/sections'
import { ActionDialog } from './action-dialog'
import { DetailPanel, KeyValues, PanelSection } from './detail-panel'
import { SelectField, StatusBadge } from './fields'

type Dialogs = 'suspend' | 'unsuspend' | 'role' | 'adjust' | null

/** UserDetailPanel shows one user and the actions an admin may take on them. */
export function UserDetailPanel({ userId, onClose }: { userId: string; onClose: () => void }) {
  const me = useAuthStore((s) => s.user?.id)
  const detail = useQuery(userDetailQuery(userId))
  const [dialog, setDialog] = useState<Dialogs>(null)
  const [role, setRole] = useState<Role>('fan')
  const [amount, setAmount] = useState('')
  const suspend = useAdminAction(suspendUser, 'User suspended')
  const unsuspend = useAdminAction(unsuspendUser, 'Suspension lifted')
  const changeRole = useAdminAction(setUserRole, (v) => `Role changed to ${v.role}`)
  const adjust = useAdminAction(adjustWallet, 'Wallet adjusted')
  const d = detail.data
  const name = d?.profile.display_name || d?.profile.username || 'User'
  const self = userId === me
  const amountValue = Number(amount)
  const amountOk = amount.trim() !== '' && Number.isFinite(amountValue) && amountValue !== 0

  return (
    <DetailPanel open onClose={onClose} title={name} testId="user-detail">
      {detail.isLoading && <Skeleton className="h-40" />}
      {detail.error && <p className="text-destructive">{String((detail.error as { message?: string }).message)}</p>}
      {d && (
        <>
          <div className="flex flex-wrap items-center gap-2">
            <StatusBadge status={d.profile.is_suspended ? 'suspended' : 'active'} />
            {d.profile.is_verified && <StatusBadge status="verified" />}
            <span className="text-sm capitalize text-muted-foreground">{d.role}</span>
          </div>
          {d.profile.is_suspended && <p className="rounded-md border border-red-500/40 p-2 text-sm">Suspended: {d.profile.suspended_reason}</p>}
          <div className="flex flex-wrap gap-2">
            {d.profile.is_suspended ? (
              <Button size="sm" variant="outline" onClick={() => setDialog('unsuspend')}>
                Unsuspend
              </Button>
            ) : (
              <Button size="sm" variant="destructive" disabled={self} title={self ? 'You cannot suspend yourself' : undefined} onClick={() => setDialog('suspend')}>
                Suspend
              </Button>
            )}
            <Button size="sm" variant="outline" disabled={self} onClick={() => (setRole(d.role ?? 'fan'), setDialog('role'))}>
              Change role
            </Button>
            <Button size="sm" variant="outline" onClick={() => setDialog('adjust')}>
              Adjust wallet
            </Button>
            <Button size="sm" variant="ghost" asChild>
              <Link to={adminPath('activities', { user: userId })}>Activity</Link>
            </Button>
            <Button size="sm" variant="ghost" asChild>
              <Link to={adminPath('transactions', { user: userId })}>Transactions</Link>
            </Button>
          </div>
          <PanelSection title="Account">
            <KeyValues
              items={[
                ['E-mail', d.account?.email ?? '—'],
                ['Username', `@${d.profile.username ?? ''}`],
                ['Joined', formatDateTime(d.profile.created_at)],
                ['Last sign-in', formatDateTime(d.account?.last_sign_in_at)],
                ['E-mail confirmed', formatDateTime(d.account?.email_confirmed_at)],
                ['Wallet', d.wallet ? formatNaira(Number(d.wallet.balance)) : '—'],
                ...(d.artist ? ([['KYC', `${d.artist.kyc_status}${d.artist.kyc_expiry_date ? ` until ${formatDateTime(d.artist.kyc_expiry_date)}` : ''}`]] as [string, string][]) : []),
              ]}
            />
          </PanelSection>
          <PanelSection title="Streams">
            <KeyValues
              items={[
                ['Valid', d.streams.valid],
                ['Rejected', d.streams.rejected],
                ['Paid', d.streams.paid],
                ['Blocked as fraud', d.blocked_streams],
              ]}
            />
            <ul className="mt-2 grid gap-1 text-sm">
              {d.recent_streams.map((s) => (
                <li key={s.id} className="flex justify-between gap-2">
                  <span className="truncate">
                    {s.title} {!s.is_valid && <span className="text-red-400">— {s.invalid_reason}</span>}
                  </span>
                  <span className="shrink-0 text-xs text-muted-foreground">{formatDateTime(s.created_at)}</span>
                </li>
              ))}
            </ul>
          </PanelSection>
          <PanelSection title={`Fraud flags (${d.fraud_flags.length})`}>
            {d.fraud_flags.length === 0 ? (
              <p className="text-sm text-muted-foreground">None</p>
            ) : (
              <ul className="grid gap-1 text-sm">
                {d.fraud_flags.map((f, i) => (
                  <li key={i}>
                    <span className="font-medium capitalize">{f.details.risk_level}</span>: {(f.details.fraud_reasons ?? []).join(', ')}{' '}
                    <span className="text-xs text-muted-foreground">{formatDateTime(f.created_at)}</span>
                  </li>
                ))}
              </ul>
            )}
          </PanelSection>
          <PanelSection title="Sessions and devices">
            <ul className="grid gap-1 text-sm">
              {d.sessions.map((s) => (
                <li key={s.session_id}>
                  {s.device_info || 'Unknown device'} · {s.ip_address ?? 'no address'} · seen {formatDateTime(s.last_seen)}
                </li>
              ))}
              {d.devices.map((dv) => (
                <li key={dv.fingerprint} className={dv.suspicious ? 'text-red-400' : undefined}>
                  {dv.platform || 'Device'} · trust {dv.trust_score} · {dv.seen_count}× · {dv.user_agent}
                </li>
              ))}
              {d.sessions.length + d.devices.length === 0 && <li className="text-muted-foreground">None recorded</li>}
            </ul>
          </PanelSection>
          {d.cashouts.length > 0 && (
            <PanelSection title="Cash-outs">
              <ul className="grid gap-1 text-sm">
                {d.cashouts.map((c) => (
                  <li key={c.id}>
                    {formatNaira(Number(c.amount))} · <StatusBadge status={c.status} /> · {formatDateTime(c.created_at)}
                  </li>
                ))}
              </ul>
            </PanelSection>
          )}
          <PanelSection title="Admin actions">
            {d.audit.length === 0 ? (
              <p className="text-sm text-muted-foreground">None</p>
            ) : (
              <ul className="grid gap-1 text-sm">
                {d.audit.map((a) => (
                  <li key={a.id}>
                    {a.actor_name} {adminVerb(a.action)}
                    {a.reason ? `: ${a.reason}` : ''} <span className="text-xs text-muted-foreground">{formatDateTime(a.created_at)}</span>
                  </li>
                ))}
              </ul>
            )}
          </PanelSection>
        </>
      )}
      <ActionDialog
        open={dialog === 'suspend'}
        onOpenChange={(o) => !o && setDialog(null)}
        title={`Suspend ${name}?`}
        description="Their open pages switch to Account Suspended and their streams stop counting."
        confirmLabel="Suspend"
        destructive
        pending={suspend.isPending}
        onConfirm={(reason) => suspend.mutateAsync({ id: userId, reason })}
      />
      <ActionDialog
        open={dialog === 'unsuspend'}
        onOpenChange={(o) => !o && setDialog(null)}
        title={`Lift ${name}'s suspension?`}
        confirmLabel="Unsuspend"
        reason="optional"
        pending={unsuspend.isPending}
        onConfirm={(reason) => unsuspend.mutateAsync({ id: userId, reason })}
      />
      <ActionDialog
        open={dialog === 'role'}
        onOpenChange={(o) => !o && setDialog(null)}
        title={`Change ${name}'s role`}
        confirmLabel="Change role"
        pending={changeRole.isPending}
        canConfirm={role !== d?.role}
        onConfirm={(reason) => changeRole.mutateAsync({ id: userId, role, reason })}
      >
        <SelectField
          id="new-role"
          label="New role"
          value={role}
          onChange={(v) => setRole(v as Role)}
          options={(['fan', 'artist', 'sponsor', 'admin'] as const).map((r) => ({ value: r, label: r[0].toUpperCase() + r.slice(1) }))}
        />
      </ActionDialog>
      <ActionDialog
        open={dialog === 'adjust'}
        onOpenChange={(o) => {
          if (!o) setDialog(null)
          if (!o) setAmount('')
        }}
        title="Adjust wallet"
        description="A positive amount credits the wallet, a negative one debits it. The movement is recorded in the ledger."
        confirmLabel="Adjust"
        pending={adjust.isPending}
        canConfirm={amountOk}
        onConfirm={(reason) => adjust.mutateAsync({ id: userId, amount: amountValue, reason })}
      >
        <div className="grid gap-1">
          <Label htmlFor="adjust-amount">Amount (₦)</Label>
          <Input id="adjust-amount" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} placeholder="e.g. 500 or -250" />
        </div>
      </ActionDialog>
    </DetailPanel>
  )
}
