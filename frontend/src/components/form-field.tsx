import { Label } from '@/components/ui/label'

/** FormField lays out a label, a control and its validation message. */
export function FormField({ id, label, error, children, hint }: { id: string; label: string; error?: string; hint?: string; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-1 gap-1.5">
      <Label htmlFor={id}>{label}</Label>
      {children}
      {hint && !error && <p className="text-xs text-muted-foreground">{hint}</p>}
      {error && (
        <p className="text-xs text-red-400" role="alert" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  )
}
