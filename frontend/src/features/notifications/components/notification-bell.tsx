import { useState } from 'react'
import { Link } from 'react-router'
import { Bell, Trash2, X } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { DropdownMenu, DropdownMenuContent, DropdownMenuTrigger } from '@/components/ui/dropdown-menu'
import { Skeleton } from '@/components/ui/skeleton'
import { Tabs, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { useAuthStore, useRoleSettled } from '@/lib/auth'
import { formatNaira } from '@/lib/format'
import { cn } from '@/lib/utils'
import { InviteError, useDeleteNotification, useInviteStates, useMarkRead, useNotifications, useRespondToInvite, useUnreadCount, type Notification } from '../api/notifications'
import { useNotificationsChannel } from '../hooks/use-notifications-channel'
import { cashoutDisplayAmount } from '../lib/cashout-amount'
import { badgeText, PAGE_SIZE, pageButtons } from '../lib/paging'

function linkFor(n: Notification): string {
  if (n.type === 'profile_completion') return '/profile'
  if (n.type.startsWith('cashout') || n.type === 'sponsor_invite') return '/artist/dashboard'
  if (n.type === 'artist_invite') return '/sponsor/dashboard'
  return '/dashboard'
}

const isInvite = (n: Notification) => n.type === 'artist_invite' || n.type === 'sponsor_invite'
const answered: Record<string, string> = { accepted: 'Accepted', rejected: 'Declined' }

function Item({ n, userId, inviteState }: { n: Notification; userId: string; inviteState?: string }) {
  const markRead = useMarkRead(userId)
  const del = useDeleteNotification(userId)
  const respond = useRespondToInvite(userId)
  const answer = (accept: boolean) =>
    respond.mutate(
      { notification: n, accept },
      {
        onSuccess: () =>
          accept
            ? toast.success('Invitation Accepted', { description: 'You have successfully accepted the sponsorship request' })
            : toast.info('Invitation Declined', { description: 'You have declined the sponsorship request' }),
        onError: (e) => toast.error('Error', { description: e instanceof InviteError ? e.message : 'Failed to process the invitation' }),
      },
    )
  const amount = n.type.startsWith('cashout') ? cashoutDisplayAmount(n.data?.amount, n.message) : null
  return (
    <li className={cn('grid gap-1 border-b border-border p-3 text-sm', !n.is_read && 'bg-primary/10')}>
      <div className="flex items-start justify-between gap-2">
        <p className="font-semibold">{n.title}</p>
        {n.is_read && (
          <button type="button" aria-label="Delete notification" onClick={() => del.mutate(n.id)} className="text-muted-foreground hover:text-foreground">
            <Trash2 className="size-3.5" />
          </button>
        )}
      </div>
      <p className="text-muted-foreground">{n.message}</p>
      {amount !== null && <p className="font-medium">{formatNaira(amount)}</p>}
      {isInvite(n) && (
        <>
          <p className="italic text-muted-foreground">{String(n.data?.pitch || 'No pitch provided')}</p>
          {inviteState && answered[inviteState] ? (
            <p className={cn('text-xs font-semibold', inviteState === 'accepted' ? 'text-green-400' : 'text-red-400')} data-testid="invite-state">
              {answered[inviteState]}
            </p>
          ) : (
            !n.is_read && (
            <div className="flex gap-2">
              <Button size="sm" onClick={() => answer(true)} disabled={respond.isPending}>
                Accept
              </Button>
              <Button size="sm" variant="outline" onClick={() => answer(false)} disabled={respond.isPending}>
                Decline
              </Button>
            </div>
            )
          )}
        </>
      )}
      <div className="flex gap-3 text-xs">
        <span className="text-muted-foreground">{new Date(n.created_at).toLocaleString('en-NG')}</span>
        {!n.is_read && !isInvite(n) && (
          <button type="button" className="text-primary hover:underline" onClick={() => markRead.mutate(n.id)}>
            Mark as read
          </button>
        )}
        {!n.is_read && n.type !== 'welcome' && n.type !== 'system_update' && (
          <Link to={linkFor(n)} className="text-primary hover:underline">
            View
          </Link>
        )}
      </div>
    </li>
  )
}

/**
 * NotificationBell is the top bar bell with the unread count and the
 * notifications panel. The badge starts from the count the app shell's
 * bootstrap brought; the list itself loads when the panel first opens, and
 * from then on the badge counts it.
 */
export function NotificationBell() {
  const userId = useAuthStore((s) => s.user?.id)
  const settled = useRoleSettled()
  const [opened, setOpened] = useState(false)
  const { data = [], isLoading, isSuccess } = useNotifications(userId, opened)
  const count = useUnreadCount(userId, settled && !opened)
  const live = useNotificationsChannel(userId)
  const markRead = useMarkRead(userId)
  const inviteStates = useInviteStates(
    userId,
    data.filter(isInvite).flatMap((n) => (typeof n.data?.invite_id === 'string' ? [n.data.invite_id] : [])),
  )
  const [tab, setTab] = useState<'all' | 'unread'>('all')
  const [page, setPage] = useState(1)
  const [open, setOpen] = useState(false)
  if (!userId) return null
  const unread = data.filter((n) => !n.is_read)
  const list = tab === 'all' ? data : unread
  const pages = Math.max(1, Math.ceil(list.length / PAGE_SIZE))
  const shown = list.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE)
  const badge = badgeText(isSuccess ? unread.length : (count.data ?? 0))
  return (
    <DropdownMenu
      open={open}
      onOpenChange={(o) => {
        setOpen(o)
        if (o) setOpened(true)
      }}
    >
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="icon" className="relative" aria-label="Notifications" data-live={live}>
          <Bell className="size-5" />
          {badge && (
            <span className="absolute -right-0.5 -top-0.5 min-w-5 rounded-full bg-red-600 px-1 text-center text-[10px] font-bold leading-5 text-white" data-testid="unread-badge">
              {badge}
            </span>
          )}
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-[22rem] p-0">
        <div className="flex items-center justify-between gap-2 border-b border-border p-2">
          <Tabs
            value={tab}
            onValueChange={(v) => {
              setTab(v as 'all' | 'unread')
              setPage(1)
            }}
          >
            <TabsList>
              <TabsTrigger value="all">All</TabsTrigger>
              <TabsTrigger value="unread">Unread</TabsTrigger>
            </TabsList>
          </Tabs>
          <div className="flex items-center">
            <Button variant="ghost" size="sm" onClick={() => markRead.mutate(null)} disabled={unread.length === 0}>
              Mark all read
            </Button>
            <Button variant="ghost" size="icon" aria-label="Close notifications" onClick={() => setOpen(false)}>
              <X />
            </Button>
          </div>
        </div>
        <div className="h-[400px] overflow-y-auto">
          {isLoading ? (
            <div className="grid grid-cols-1 gap-2 p-3">
              {Array.from({ length: 4 }, (_, i) => (
                <Skeleton key={i} className="h-14" />
              ))}
            </div>
          ) : shown.length === 0 ? (
            <p className="p-6 text-center text-sm text-muted-foreground">{tab === 'all' ? 'No notifications' : 'No unread notifications'}</p>
          ) : (
            <ul>
              {shown.map((n) => (
                <Item key={n.id} n={n} userId={userId} inviteState={inviteStates.data?.get(String(n.data?.invite_id ?? ''))} />
              ))}
            </ul>
          )}
        </div>
        {pages > 1 && (
          <div className="flex items-center justify-center gap-1 border-t border-border p-2">
            <Button variant="ghost" size="sm" disabled={page === 1} onClick={() => setPage(page - 1)}>
              Previous
            </Button>
            {pageButtons(page, list.length).map((p) => (
              <Button key={p} variant={p === page ? 'default' : 'ghost'} size="sm" onClick={() => setPage(p)}>
                {p}
              </Button>
            ))}
            <Button variant="ghost" size="sm" disabled={page === pages} onClick={() => setPage(page + 1)}>
              Next
            </Button>
          </div>
        )}
      </DropdownMenuContent>
    </DropdownMenu>
  )
}
