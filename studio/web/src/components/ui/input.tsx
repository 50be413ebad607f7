import * as React from 'react'
import { cn } from '@/lib/utils'

const field =
  'w-full rounded-md border border-border bg-panel px-2.5 py-1.5 text-sm placeholder:text-muted-foreground focus-visible:outline-none focus-visible:ring-1 focus-visible:ring-ring disabled:opacity-60'

/** Input is a text field. */
export function Input({ className, ...props }: React.ComponentProps<'input'>) {
  return <input className={cn(field, 'h-8', className)} {...props} />
}

/** Textarea is a multi-line field, monospaced when it holds code. */
export function Textarea({ className, ...props }: React.ComponentProps<'textarea'>) {
  return <textarea className={cn(field, 'min-h-20 font-mono text-xs', className)} {...props} />
}

/** Select is a native select styled as a field. */
export function Select({ className, ...props }: React.ComponentProps<'select'>) {
  return <select className={cn(field, 'h-8 py-0', className)} {...props} />
}

/** Label names a field. */
export function Label({ className, ...props }: React.ComponentProps<'label'>) {
  return <label className={cn('text-xs font-medium text-muted-foreground', className)} {...props} />
}
