import { useEffect, useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { History, Pencil, Plus, Trash2 } from 'lucide-react'
import { api } from '@/lib/api'
import { Button } from '@/components/ui/button'
import { Input, Label, Textarea } from '@/components/ui/input'
import { FormDialog } from '@/components/ui/form-dialog'
import { Badge, Card, ErrorText } from '@/components/ui/misc'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { DataList, ago, when } from '@/components/ui/data-list'

type Run = { runid: number; status: string; return_message: string | null; start_time: string | null; end_time: string | null; duration_ms?: number | null }
type Job = {
  jobid: number
  jobname: string | null
  schedule: string
  command: string
  active: boolean
  username: string
  last_run: Run | null
  failed_runs: number
}
type CronData = { status: { enabled: boolean; version?: string; seconds: boolean; problem?: string }; jobs: Job[] }
type Draft = { jobname: string; schedule: string; command: string; active: boolean }

const runTone = (s: string) => (s === 'succeeded' ? 'ok' : s === 'failed' ? 'bad' : 'warn')

const presets = [
  { label: 'every minute', value: '* * * * *' },
  { label: 'every 5 minutes', value: '*/5 * * * *' },
  { label: 'hourly', value: '0 * * * *' },
  { label: 'daily at 03:00', value: '0 3 * * *' },
  { label: 'Mondays at 09:00', value: '0 9 * * 1' },
]

/** Cron lists pg_cron's jobs with their last run, schedules, edits and unschedules them, and shows a job's runs. */
export default function Cron() {
  const qc = useQueryClient()
  const q = useQuery({ queryKey: ['cron'], queryFn: () => api<CronData>('/api/cron'), refetchInterval: 10_000 })
  const [editing, setEditing] = useState<{ id?: number; draft: Draft } | null>(null)
  const [dropping, setDropping] = useState<Job | null>(null)
  const [history, setHistory] = useState<Job | null>(null)
  const refresh = () => qc.invalidateQueries({ queryKey: ['cron'] })
  const unschedule = useMutation({
    mutationFn: (j: Job) => api(`/api/cron/jobs/${j.jobid}`, { method: 'DELETE' }),
    onSuccess: (_, j) => {
      setDropping(null)
      if (history?.jobid === j.jobid) setHistory(null)
      refresh()
    },
  })
  const toggle = useMutation({
    mutationFn: (j: Job) => api(`/api/cron/jobs/${j.jobid}`, { method: 'PATCH', json: { active: !j.active } }),
    onSuccess: refresh,
  })
  const st = q.data?.status
  return (
    <div className="grid-scroll flex flex-1 flex-col gap-3 p-5">
      <div className="flex items-center gap-3">
        <h1 className="text-lg font-semibold">Cron</h1>
        {st?.enabled && <Badge tone="ok">pg_cron {st.version}</Badge>}
        <Button className="ml-auto" disabled={!st?.enabled} onClick={() => setEditing({ draft: { jobname: '', schedule: '*/5 * * * *', command: '', active: true } })}>
          <Plus /> New job
        </Button>
      </div>
      <ErrorText error={q.error ?? toggle.error} />
      {st && !st.enabled && (
        <Card className="border-warning/50" data-testid="cron-off">
          <div className="font-medium text-warning">Cron is off</div>
          <div className="mt-1 text-xs text-muted-foreground">{st.problem}</div>
        </Card>
      )}
      <DataList
        label="Cron jobs"
        rows={q.data?.jobs}
        rowKey={(j) => j.jobid}
        empty={st?.enabled ? 'No jobs yet: schedule one, or run select cron.schedule(…) in the SQL editor.' : 'No jobs.'}
        selected={(j) => j.jobid === history?.jobid}
        columns={[
          { header: 'id', cell: (j) => j.jobid },
          { header: 'name', cell: (j) => <span className="font-medium">{j.jobname ?? '(unnamed)'}</span> },
          { header: 'schedule', cell: (j) => <span className="font-mono">{j.schedule}</span> },
          { header: 'command', className: 'max-w-md', cell: (j) => <code className="line-clamp-2 break-all font-mono text-muted-foreground">{j.command}</code> },
          {
            header: 'active',
            cell: (j) => (
              <label className="flex items-center gap-1.5">
                <input type="checkbox" aria-label={`Active ${j.jobname ?? j.jobid}`} checked={j.active} onChange={() => toggle.mutate(j)} />
                {j.active ? 'on' : 'paused'}
              </label>
            ),
          },
          {
            header: 'last run',
            cell: (j) =>
              j.last_run ? (
                <span className="flex items-center gap-1.5">
                  <Badge tone={runTone(j.last_run.status)}>{j.last_run.status}</Badge> {ago(j.last_run.start_time)} ago
                </span>
              ) : (
                <span className="text-muted-foreground">never</span>
              ),
          },
          { header: 'failed (last 100)', cell: (j) => (j.failed_runs > 0 ? <Badge tone="bad">{j.failed_runs}</Badge> : '0') },
          {
            header: '',
            cell: (j) => (
              <span className="flex gap-1">
                <Button variant="ghost" size="icon" aria-label={`Runs of ${j.jobname ?? j.jobid}`} onClick={() => setHistory(j)}>
                  <History />
                </Button>
                <Button
                  variant="ghost"
                  size="icon"
                  aria-label={`Edit ${j.jobname ?? j.jobid}`}
                  onClick={() => setEditing({ id: j.jobid, draft: { jobname: j.jobname ?? '', schedule: j.schedule, command: j.command, active: j.active } })}
                >
                  <Pencil />
                </Button>
                <Button variant="ghost" size="icon" aria-label={`Unschedule ${j.jobname ?? j.jobid}`} onClick={() => (unschedule.reset(), setDropping(j))}>
                  <Trash2 />
                </Button>
              </span>
            ),
          },
        ]}
      />
      {history && <Runs job={history} />}
      {editing && st && <JobDialog id={editing.id} initial={editing.draft} seconds={st.seconds} onClose={() => setEditing(null)} onSaved={() => (setEditing(null), refresh())} />}
      <ConfirmDialog
        open={!!dropping}
        title={`Unschedule ${dropping?.jobname ?? `job ${dropping?.jobid}`}?`}
        description="cron.unschedule removes the job: it runs no more. The change is written to the audit log."
        confirm="Unschedule"
        pending={unschedule.isPending}
        error={unschedule.error}
        onCancel={() => setDropping(null)}
        onConfirm={() => dropping && unschedule.mutate(dropping)}
      />
    </div>
  )
}

/** Runs shows a job's run history (cron.job_run_details), newest first. */
function Runs({ job }: { job: Job }) {
  const qc = useQueryClient()
  const [status, setStatus] = useState('')
  const q = useQuery({
    queryKey: ['cron', 'runs', job.jobid, status],
    queryFn: () => api<Run[]>(`/api/cron/jobs/${job.jobid}/runs?limit=100${status ? `&status=${status}` : ''}`),
    refetchInterval: 5000,
  })
  // A new run changes the job's "last run": read the list again.
  const newest = q.data?.[0]?.runid
  useEffect(() => {
    if (newest !== undefined) qc.invalidateQueries({ queryKey: ['cron'], exact: true })
  }, [newest, qc])
  return (
    <section className="flex flex-col gap-2" aria-label="Run history">
      <div className="flex items-center gap-2">
        <h2 className="text-sm font-semibold">Runs of {job.jobname ?? `job ${job.jobid}`}</h2>
        {['', 'succeeded', 'failed'].map((s) => (
          <Button key={s} size="sm" variant={status === s ? 'default' : 'outline'} onClick={() => setStatus(s)}>
            {s || 'all'}
          </Button>
        ))}
      </div>
      <ErrorText error={q.error} />
      <DataList
        label="Runs"
        rows={q.data}
        rowKey={(r) => r.runid}
        empty="No runs yet."
        columns={[
          { header: 'run', cell: (r) => r.runid },
          { header: 'status', cell: (r) => <Badge tone={runTone(r.status)}>{r.status}</Badge> },
          { header: 'started', cell: (r) => when(r.start_time) },
          { header: 'took', cell: (r) => (r.duration_ms == null ? '–' : `${Math.round(r.duration_ms)} ms`) },
          { header: 'message', className: 'max-w-xl', cell: (r) => <code className="break-all font-mono">{r.return_message}</code> },
        ]}
      />
    </section>
  )
}

function JobDialog({ id, initial, seconds, onClose, onSaved }: { id?: number; initial: Draft; seconds: boolean; onClose: () => void; onSaved: () => void }) {
  const [d, setD] = useState<Draft>(initial)
  const save = useMutation({
    mutationFn: () =>
      id === undefined
        ? api('/api/cron/jobs', { method: 'POST', json: d })
        : api(`/api/cron/jobs/${id}`, { method: 'PATCH', json: { schedule: d.schedule, command: d.command, active: d.active } }),
    onSuccess: onSaved,
  })
  const callURL = `select net.http_post(\n  url := 'https://example.com/hook',\n  headers := '{"Content-Type": "application/json"}'::jsonb,\n  body := '{"from": "cron"}'::jsonb\n)`
  return (
    <FormDialog
      className="max-w-2xl"
      title={id === undefined ? 'New cron job' : `Edit job ${initial.jobname || id}`}
      description="pg_cron checks the schedule when the job is saved; the command runs as the database owner."
      submit={id === undefined ? 'Schedule job' : 'Save job'}
      pending={save.isPending}
      error={save.error}
      onSubmit={() => save.mutate()}
      onClose={onClose}
    >
      <Label htmlFor="job-name">Name</Label>
      <Input id="job-name" value={d.jobname} disabled={id !== undefined} required onChange={(e) => setD({ ...d, jobname: e.target.value })} />
      <Label htmlFor="job-schedule">Schedule (cron syntax{seconds ? ", or '30 seconds'" : ''})</Label>
      <Input id="job-schedule" className="font-mono" value={d.schedule} required onChange={(e) => setD({ ...d, schedule: e.target.value })} />
      <div className="flex flex-wrap gap-1">
        {presets.map((p) => (
          <Button key={p.value} type="button" size="sm" variant="outline" onClick={() => setD({ ...d, schedule: p.value })}>
            {p.label}
          </Button>
        ))}
      </div>
      <div className="flex items-center justify-between">
        <Label htmlFor="job-command">Command (SQL)</Label>
        <Button type="button" size="sm" variant="ghost" onClick={() => setD({ ...d, command: callURL })}>
          Call a URL (net.http_post)
        </Button>
      </div>
      <Textarea id="job-command" className="min-h-28" value={d.command} required onChange={(e) => setD({ ...d, command: e.target.value })} />
      <label className="flex items-center gap-2 text-xs">
        <input type="checkbox" checked={d.active} onChange={(e) => setD({ ...d, active: e.target.checked })} /> active
      </label>
    </FormDialog>
  )
}
