import { useState } from 'react'
import { cn } from '@/lib/utils'

/**
 * FileDrop is a file field as a drop zone: drop a file on it, or tap it to
 * browse (its input stays the form's control, for keyboards and tests).
 * `children` shows what was chosen.
 */
export function FileDrop({
  id,
  accept,
  disabled,
  invalid,
  onFile,
  prompt,
  children,
}: {
  id: string
  accept: string[]
  disabled?: boolean
  invalid?: boolean
  onFile: (f: File | null) => void
  prompt: string
  children?: React.ReactNode
}) {
  const [over, setOver] = useState(false)
  return (
    <label
      htmlFor={id}
      data-testid={`${id}-drop`}
      data-over={over || undefined}
      onDragOver={(e) => {
        if (disabled) return
        // Accepting the drag is what makes the drop land here instead of opening the file.
        e.preventDefault()
        setOver(true)
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault()
        setOver(false)
        if (!disabled) onFile(e.dataTransfer.files?.[0] ?? null)
      }}
      className={cn(
        'flex min-h-24 cursor-pointer flex-col items-center justify-center gap-2 rounded-xl border-2 border-dashed border-border p-4 text-center text-sm text-muted-foreground transition-colors [overflow-wrap:anywhere]',
        'hover:border-primary/60 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-ring data-[over]:border-primary data-[over]:bg-primary/10',
        invalid && 'border-red-400',
        disabled && 'cursor-not-allowed opacity-60',
      )}
    >
      <input id={id} type="file" accept={accept.join(',')} disabled={disabled} className="sr-only" aria-invalid={invalid} onChange={(e) => onFile(e.target.files?.[0] ?? null)} />
      {children}
      <span>{prompt}</span>
    </label>
  )
}
