import { Skeleton } from '@/components/ui/skeleton'

// Small pieces the three dashboards share.

/** Stat is one figure card. */
export function Stat({ label, value, hint, testId }: { label: string; value: string; hint?: React.ReactNode; testId?: string }) {
  return (
    <div className="min-w-0 rounded-xl border border-border bg-card p-4" data-testid={testId}>
      <p className="text-sm text-muted-foreground">{label}</p>
      <p className="mt-1 truncate text-2xl font-bold tabular-nums">{value}</p>
      {hint && <div className="mt-1 text-xs text-muted-foreground">{hint}</div>}
    </div>
  )
}

/** Section is a titled block of a dashboard. */
export function Section({ title, action, children }: { title: string; action?: React.ReactNode; children: React.ReactNode }) {
  return (
    <section className="mt-8 grid grid-cols-1 gap-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="text-xl font-bold">{title}</h2>
        {action}
      </div>
      {children}
    </section>
  )
}

/** DashboardSkeleton holds the layout while the first call runs. */
export function DashboardSkeleton() {
  return (
    <div className="mt-6 grid grid-cols-2 gap-3 md:grid-cols-4" aria-busy="true">
      {Array.from({ length: 4 }, (_, i) => (
        <Skeleton key={i} className="h-24" />
      ))}
    </div>
  )
}
