import { Sheet, SheetContent, SheetDescription, SheetTitle } from '@/components/ui/sheet'

/**
 * DetailPanel is a side panel for one user or track: full height from the
 * right on wide screens, nearly full screen from the bottom on phones.
 */
export function DetailPanel({ open, onClose, title, children, testId }: { open: boolean; onClose: () => void; title: string; children: React.ReactNode; testId?: string }) {
  return (
    <Sheet open={open} onOpenChange={(o) => !o && onClose()}>
      <SheetContent
        data-testid={testId}
        className="max-h-[92vh] overflow-y-auto md:inset-y-0 md:left-auto md:right-0 md:max-h-none md:w-[560px] md:rounded-none md:border-l md:border-t-0"
      >
        <SheetTitle className="pr-8">{title}</SheetTitle>
        <SheetDescription>Details and actions</SheetDescription>
        <div className="mt-4 grid gap-5">{children}</div>
      </SheetContent>
    </Sheet>
  )
}

/** Section is a titled block inside a detail panel. */
export function PanelSection({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section>
      <h3 className="mb-2 text-sm font-semibold uppercase tracking-wide text-muted-foreground">{title}</h3>
      {children}
    </section>
  )
}

/** KeyValues lists label/value pairs. */
export function KeyValues({ items }: { items: [string, React.ReactNode][] }) {
  return (
    <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm [overflow-wrap:anywhere]">
      {items.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="text-muted-foreground">{k}</dt>
          <dd className="break-words">{v}</dd>
        </div>
      ))}
    </dl>
  )
}
