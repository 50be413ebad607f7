import type { ReactNode } from 'react'
import { Button } from './button'
import { Dialog, DialogContent } from './dialog'
import { ErrorText } from './misc'

/** ConfirmDialog asks before a destructive action; the action's error shows inside. */
export function ConfirmDialog({
  title,
  description,
  action,
  pending,
  error,
  onConfirm,
  onClose,
  children,
}: {
  title: string
  description: string
  action: string
  pending?: boolean
  error?: unknown
  onConfirm: () => void
  onClose: () => void
  children?: ReactNode
}) {
  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent title={title} description={description}>
        {children}
        <ErrorText error={error} />
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="destructive" disabled={pending} onClick={onConfirm}>
            {action}
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  )
}
