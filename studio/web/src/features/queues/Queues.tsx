import { useState } from 'react'
import { Link, useNavigate, useParams } from 'react-router'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Archive, Plus, Send, Trash2 } from 'lucide-react'
import { api } from '@/lib/api'
import { cn, formatCount } from '@/lib/utils'
import { Button } from '@/components/ui/button'
import { Input, Label, Textarea } from '@/components/ui/input'
import { FormDialog } from '@/components/ui/form-dialog'
import { Badge, Card, ErrorText, Tabs } from '@/components/ui/misc'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { DataList, age, when } from '@/components/ui/data-list'
import { SIDE_START, SPLIT, SPLIT_MAIN } from '@/lib/layout'

type Queue = {
  queue_name: string
  is_unlogged: boolean
  created_at: string
  queue_length: number
  queue_visible_length: number
  oldest_msg_age_sec: number | null
  newest_msg_age_sec: number | null
  total_messages: number
}
type Message = { msg_id: number; read_ct: number; enqueued_at: string; vt: string; visible: boolean; message: unknown; archived_at?: string }

/** Queues lists pgmq's queues with their depth and oldest message, and shows one queue's messages. */
export default function Queues() {
  const { queue = '' } = useParams()
  const navigate = useNavigate()
  const qc = useQueryClient()
  const q = useQuery({ queryKey: ['queues'], queryFn: () => api<Queue[]>('/api/queues'), refetchInterval: 5000 })
  const [creating, setCreating] = useState(false)
  const selected = q.data?.find((x) => x.queue_name === queue)
  return (
    <div className={SPLIT}>
      <div className={cn(SIDE_START, 'flex flex-col gap-2 p-3 md:w-72')}>
        <div className="flex items-center justify-between">
          <h1 className="text-base font-semibold">Queues</h1>
          <Button size="sm" onClick={() => setCreating(true)}>
            <Plus /> New queue
          </Button>
        </div>
        <ErrorText error={q.error} />
        <ul className="grid-scroll -mx-1 flex-1" aria-label="Queues">
          {(q.data ?? []).map((x) => (
            <li key={x.queue_name}>
              <Link to={`/queues/${encodeURIComponent(x.queue_name)}`} className={cn('flex items-center justify-between gap-2 rounded px-2 py-1.5', x.queue_name === queue ? 'bg-accent' : 'hover:bg-accent/60')}>
                <span className="truncate font-mono">{x.queue_name}</span>
                <span className="shrink-0 text-[11px] text-muted-foreground" title="messages · age of the oldest">
                  {formatCount(x.queue_length)} · {age(x.oldest_msg_age_sec)}
                </span>
              </Link>
            </li>
          ))}
          {q.data?.length === 0 && <li className="px-2 text-xs text-muted-foreground">No queues yet.</li>}
        </ul>
      </div>
      <div className={SPLIT_MAIN}>
        {selected ? (
          <QueueView key={selected.queue_name} queue={selected} onDropped={() => (navigate('/queues'), qc.invalidateQueries({ queryKey: ['queues'] }))} />
        ) : (
          <div className="p-6 text-muted-foreground">{queue && q.data ? `No queue named ${queue}.` : 'Choose a queue.'}</div>
        )}
      </div>
      {creating && <CreateQueue onClose={() => setCreating(false)} onCreated={(name) => (setCreating(false), qc.invalidateQueries({ queryKey: ['queues'] }), navigate(`/queues/${name}`))} />}
    </div>
  )
}

function Stat({ label, value, testid }: { label: string; value: string; testid?: string }) {
  return (
    <Card className="flex flex-col gap-0.5 py-3" data-testid={testid}>
      <span className="text-xs text-muted-foreground">{label}</span>
      <span className="text-lg font-semibold">{value}</span>
    </Card>
  )
}

function QueueView({ queue, onDropped }: { queue: Queue; onDropped: () => void }) {
  const qc = useQueryClient()
  const name = queue.queue_name
  const [tab, setTab] = useState<'messages' | 'archive'>('messages')
  const [sending, setSending] = useState(false)
  const [confirm, setConfirm] = useState<'drop' | 'purge' | null>(null)
  const [deleting, setDeleting] = useState<Message | null>(null)
  const base = `/api/queues/${encodeURIComponent(name)}`
  const msgs = useQuery({
    queryKey: ['queues', name, tab],
    queryFn: () => api<Message[]>(`${base}/messages?limit=100${tab === 'archive' ? '&archive=true' : ''}`),
    refetchInterval: 5000,
  })
  const refresh = () => qc.invalidateQueries({ queryKey: ['queues'] })
  const destroy = useMutation({
    mutationFn: (what: 'drop' | 'purge') => api(what === 'drop' ? base : `${base}/purge`, { method: what === 'drop' ? 'DELETE' : 'POST' }),
    onSuccess: (_, what) => (setConfirm(null), what === 'drop' ? onDropped() : refresh()),
  })
  const archive = useMutation({ mutationFn: (m: Message) => api(`${base}/messages/${m.msg_id}/archive`, { method: 'POST' }), onSuccess: refresh })
  const remove = useMutation({
    mutationFn: (m: Message) => api(`${base}/messages/${m.msg_id}`, { method: 'DELETE' }),
    onSuccess: () => (setDeleting(null), refresh()),
  })
  return (
    <div className="grid-scroll flex flex-1 flex-col gap-3 p-4">
      <div className="flex items-center gap-2">
        <h2 className="font-mono text-base font-semibold">{name}</h2>
        {queue.is_unlogged && <Badge tone="warn">unlogged</Badge>}
        <span className="text-xs text-muted-foreground">created {when(queue.created_at)}</span>
        <div className="ml-auto flex gap-2">
          <Button onClick={() => setSending(true)}>
            <Send /> Send message
          </Button>
          <Button variant="outline" onClick={() => (destroy.reset(), setConfirm('purge'))}>
            Purge
          </Button>
          <Button variant="destructive" onClick={() => (destroy.reset(), setConfirm('drop'))}>
            <Trash2 /> Drop queue
          </Button>
        </div>
      </div>
      <div className="grid grid-cols-4 gap-3">
        <Stat label="Messages in queue" value={formatCount(queue.queue_length)} testid="queue-depth" />
        <Stat label="Visible now" value={formatCount(queue.queue_visible_length)} />
        <Stat label="Oldest message" value={age(queue.oldest_msg_age_sec)} testid="queue-oldest" />
        <Stat label="Sent, all time" value={formatCount(queue.total_messages)} />
      </div>
      <Tabs
        value={tab}
        onChange={setTab}
        items={[
          { value: 'messages', label: 'Messages' },
          { value: 'archive', label: 'Archive' },
        ]}
      />
      <p className="text-xs text-muted-foreground">Peeking does not read: the messages' read count and visibility stay as they are.</p>
      <ErrorText error={msgs.error ?? archive.error} />
      <DataList
        label="Messages"
        rows={msgs.data}
        rowKey={(m) => m.msg_id}
        empty={tab === 'archive' ? 'The archive is empty.' : 'The queue is empty.'}
        columns={[
          { header: 'id', cell: (m) => m.msg_id },
          { header: 'message', className: 'max-w-xl', cell: (m) => <code className="line-clamp-3 break-all font-mono">{JSON.stringify(m.message)}</code> },
          { header: 'reads', cell: (m) => m.read_ct },
          { header: 'enqueued', cell: (m) => when(m.enqueued_at) },
          tab === 'archive'
            ? { header: 'archived', cell: (m) => when(m.archived_at) }
            : { header: 'visible', cell: (m) => (m.visible ? <Badge tone="ok">now</Badge> : <Badge>from {when(m.vt)}</Badge>) },
          {
            header: '',
            cell: (m) =>
              tab === 'messages' && (
                <span className="flex gap-1">
                  <Button variant="ghost" size="icon" aria-label={`Archive message ${m.msg_id}`} onClick={() => archive.mutate(m)}>
                    <Archive />
                  </Button>
                  <Button variant="ghost" size="icon" aria-label={`Delete message ${m.msg_id}`} onClick={() => (remove.reset(), setDeleting(m))}>
                    <Trash2 />
                  </Button>
                </span>
              ),
          },
        ]}
      />
      {sending && <SendMessage base={base} name={name} onClose={() => setSending(false)} onSent={() => (setSending(false), refresh())} />}
      <ConfirmDialog
        open={confirm !== null}
        title={confirm === 'drop' ? `Drop queue ${name}?` : `Purge queue ${name}?`}
        description={
          confirm === 'drop'
            ? 'pgmq.drop_queue drops the queue, its messages and its archive. The change is written to the audit log.'
            : 'pgmq.purge_queue deletes every message in the queue (the archive stays). The change is written to the audit log.'
        }
        confirm={confirm === 'drop' ? 'Drop queue' : 'Purge messages'}
        pending={destroy.isPending}
        error={destroy.error}
        onCancel={() => setConfirm(null)}
        onConfirm={() => confirm && destroy.mutate(confirm)}
      />
      <ConfirmDialog
        open={!!deleting}
        title={`Delete message ${deleting?.msg_id}?`}
        description="pgmq.delete removes it for good; archive it instead to keep it. The change is written to the audit log."
        confirm="Delete message"
        pending={remove.isPending}
        error={remove.error}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting)}
      />
    </div>
  )
}

function CreateQueue({ onClose, onCreated }: { onClose: () => void; onCreated: (name: string) => void }) {
  const [name, setName] = useState('')
  const [unlogged, setUnlogged] = useState(false)
  const create = useMutation({
    mutationFn: () => api<Queue>('/api/queues', { method: 'POST', json: { queue_name: name, unlogged } }),
    onSuccess: (q) => onCreated(q.queue_name),
  })
  return (
    <FormDialog title="New queue" description="pgmq.create makes the queue's table and its archive." submit="Create queue" pending={create.isPending} error={create.error} onSubmit={() => create.mutate()} onClose={onClose}>
      <Label htmlFor="queue-name">Name (letters, digits, underscores)</Label>
      <Input id="queue-name" value={name} required onChange={(e) => setName(e.target.value)} />
      <label className="flex items-center gap-2 text-xs">
        <input type="checkbox" checked={unlogged} onChange={(e) => setUnlogged(e.target.checked)} /> unlogged (faster; messages are lost if the server crashes)
      </label>
    </FormDialog>
  )
}

function SendMessage({ base, name, onClose, onSent }: { base: string; name: string; onClose: () => void; onSent: () => void }) {
  const [text, setText] = useState('{\n  "hello": "world"\n}')
  const [delay, setDelay] = useState('0')
  const [parseError, setParseError] = useState('')
  const send = useMutation({
    mutationFn: (message: unknown) => api(`${base}/messages`, { method: 'POST', json: { message, delay: Number(delay) || 0 } }),
    onSuccess: onSent,
  })
  const submit = () => {
    try {
      const v = JSON.parse(text)
      setParseError('')
      send.mutate(v)
    } catch (err) {
      setParseError(`The message is not JSON: ${(err as Error).message}`)
    }
  }
  return (
    <FormDialog title={`Send a message to ${name}`} description="pgmq.send with any JSON value." submit="Send" pending={send.isPending} error={parseError || send.error} onSubmit={submit} onClose={onClose}>
      <Label htmlFor="message-body">Message (JSON)</Label>
      <Textarea id="message-body" className="min-h-32" value={text} onChange={(e) => setText(e.target.value)} />
      <Label htmlFor="message-delay">Delay (seconds before it is visible)</Label>
      <Input id="message-delay" type="number" min={0} value={delay} onChange={(e) => setDelay(e.target.value)} />
    </FormDialog>
  )
}
