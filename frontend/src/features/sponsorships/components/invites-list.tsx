import { Check, Undo2, X } from 'lucide-react'
import { toast } from 'sonner'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { useRespondInvite, useWithdrawInvite } from '../api/invites'

/** InviteItem is an invite as the dashboards list it. */
export interface InviteItem {
  id: string
  other: string
  track_title: string | null
  status: 'pending' | 'accepted' | 'rejected'
  /** incoming: the caller is the invitee and may answer. */
  incoming: boolean
  pitch: string | null
  created_at: string
}

const stateClass = { pending: 'bg-amber-500/20 text-amber-300', accepted: 'bg-green-600/20 text-green-300', rejected: 'bg-red-600/20 text-red-300' }
const stateText = { pending: 'Pending', accepted: 'Accepted', rejected: 'Declined' }

/** InvitesList shows invites with their state; pending incoming ones can be answered, outgoing ones withdrawn. */
export function InvitesList({ invites, empty }: { invites: InviteItem[]; empty: string }) {
  const respond = useRespondInvite()
  const withdraw = useWithdrawInvite()
  const answer = (id: string, accept: boolean) =>
    respond.mutate(
      { id, accept },
      {
        onSuccess: () =>
          accept
            ? toast.success('Invitation Accepted', { description: 'You have successfully accepted the sponsorship request' })
            : toast.info('Invitation Declined', { description: 'You have declined the sponsorship request' }),
        onError: (e) => toast.error('Error', { description: e.message || 'Failed to process the invitation' }),
      },
    )
  if (invites.length === 0) return <p className="rounded-xl border border-border p-6 text-center text-muted-foreground">{empty}</p>
  return (
    <ul className="grid grid-cols-1 gap-2" data-testid="invites">
      {invites.map((i) => (
        <li key={i.id} className="flex flex-wrap items-center gap-3 rounded-xl border border-border bg-card p-3" data-testid="invite">
          <div className="min-w-0 flex-1">
            <p className="font-medium">
              {i.other}
              {i.track_title && <span className="text-muted-foreground"> · “{i.track_title}”</span>}
            </p>
            <p className="truncate text-sm italic text-muted-foreground">{i.pitch || 'No pitch provided'}</p>
          </div>
          <Badge className={stateClass[i.status]}>{stateText[i.status]}</Badge>
          {i.status === 'pending' && i.incoming && (
            <div className="flex gap-2">
              <Button size="sm" onClick={() => answer(i.id, true)} disabled={respond.isPending}>
                <Check /> Accept
              </Button>
              <Button size="sm" variant="outline" onClick={() => answer(i.id, false)} disabled={respond.isPending}>
                <X /> Decline
              </Button>
            </div>
          )}
          {i.status === 'pending' && !i.incoming && (
            <Button
              size="sm"
              variant="ghost"
              disabled={withdraw.isPending}
              onClick={() =>
                withdraw.mutate(i.id, {
                  onSuccess: () => toast.info('Invitation withdrawn'),
                  onError: (e) => toast.error('Could not withdraw', { description: e.message }),
                })
              }
            >
              <Undo2 /> Withdraw
            </Button>
          )}
        </li>
      ))}
    </ul>
  )
}
