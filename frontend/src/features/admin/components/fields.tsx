import { useState } from 'react'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { cn } from '@/lib/utils'

/** FilterBar lays filters out in a wrapping row. */
export function FilterBar({ children, className }: { children: React.ReactNode; className?: string }) {
  return <div className={cn('mb-4 flex flex-wrap items-end gap-3', className)}>{children}</div>
}

/** SelectField is a labelled native select (keyboard and mobile friendly). */
export function SelectField({
  id,
  label,
  value,
  onChange,
  options,
}: {
  id: string
  label: string
  value: string
  onChange: (v: string) => void
  options: readonly { value: string; label: string }[]
}) {
  return (
    <div className="grid gap-1">
      <Label htmlFor={id} className="text-xs text-muted-foreground">
        {label}
      </Label>
      <select
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        className="h-10 rounded-md border border-border bg-background px-3 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  )
}

/** DateField is a labelled date input (YYYY-MM-DD). */
export function DateField({ id, label, value, onChange }: { id: string; label: string; value: string; onChange: (v: string) => void }) {
  return (
    <div className="grid gap-1">
      <Label htmlFor={id} className="text-xs text-muted-foreground">
        {label}
      </Label>
      <Input id={id} type="date" value={value} onChange={(e) => onChange(e.target.value)} className="w-40 max-w-full" />
    </div>
  )
}

/**
 * SearchField applies its text on submit (Enter or the button), so a list
 * is not re-read on every key press.
 */
export function SearchField({ id, label, value, placeholder, onSearch }: { id: string; label: string; value: string; placeholder?: string; onSearch: (v: string) => void }) {
  const [text, setText] = useState(value)
  return (
    <form
      className="grid min-w-0 max-w-full gap-1"
      role="search"
      onSubmit={(e) => {
        e.preventDefault()
        onSearch(text.trim())
      }}
    >
      <Label htmlFor={id} className="text-xs text-muted-foreground">
        {label}
      </Label>
      <div className="flex gap-2">
        <Input id={id} value={text} placeholder={placeholder} onChange={(e) => setText(e.target.value)} className="w-64 min-w-0 max-w-full" />
        <Button type="submit" variant="secondary">
          Search
        </Button>
      </div>
    </form>
  )
}

/** Stat is one figure on a card. */
export function Stat({ label, value, hint, tone, testId }: { label: string; value: React.ReactNode; hint?: React.ReactNode; tone?: 'good' | 'bad'; testId?: string }) {
  return (
    <div className="min-w-0 rounded-xl border border-border bg-card p-4 [overflow-wrap:anywhere]" data-testid={testId}>
      <p className="text-xs uppercase tracking-wide text-muted-foreground">{label}</p>
      <p className={cn('mt-1 text-xl font-bold', tone === 'good' && 'text-green-500', tone === 'bad' && 'text-red-500')}>{value}</p>
      {hint && <p className="mt-1 text-xs text-muted-foreground">{hint}</p>}
    </div>
  )
}

/** StatusBadge colours a status word. */
export function StatusBadge({ status }: { status: string }) {
  const tone: Record<string, string> = {
    active: 'bg-green-600/20 text-green-400',
    approved: 'bg-green-600/20 text-green-400',
    completed: 'bg-green-600/20 text-green-400',
    accepted: 'bg-green-600/20 text-green-400',
    pending: 'bg-amber-500/20 text-amber-400',
    hidden: 'bg-amber-500/20 text-amber-400',
    suspended: 'bg-red-600/20 text-red-400',
    removed: 'bg-red-600/20 text-red-400',
    rejected: 'bg-red-600/20 text-red-400',
    ended: 'bg-slate-500/20 text-slate-300',
    verified: 'bg-sky-500/20 text-sky-300',
  }
  return <span className={cn('inline-flex rounded-full px-2 py-0.5 text-xs font-semibold capitalize', tone[status] ?? 'bg-muted text-muted-foreground')}>{status}</span>
}
