import type { ReactNode } from 'react'
import { Button } from './button'
import { Dialog, DialogContent } from './dialog'
import { ErrorText } from './misc'

/**
 * ConfirmDialog asks before a destructive action: what it does, a button
 * naming it, the server's refusal when there is one.
 */
export function ConfirmDialog({
  open,
  title,
  description,
  confirm,
  onConfirm,
  onCancel,
  pending,
  error,
  destructive = true,
  children,
}: {
  open: boolean
  title: string
  description: string
  confirm: string
  onConfirm: () => void
  onCancel: () => void
  pending?: boolean
  error?: unknown
  destructive?: boolean
  children?: ReactNode
}) {
  return (
    <Dialog open={open} onOpenChange={(o) => !o && onCancel()}>
      <DialogContent title={title} description={description}>
        {children}
        <ErrorText error={error} />
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={onCancel}>
            Cancel
          </Button>
          <Button variant={destructive ? 'destructive' : 'default'} disabled={pending} onClick={onConfirm}>
            {confirm}
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  )
}
