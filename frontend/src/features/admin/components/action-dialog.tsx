import { useState } from 'react'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Label } from '@/components/ui/label'
import { Textarea } from '@/components/ui/textarea'

/**
 * ActionDialog confirms an admin action and collects its reason. The
 * database refuses an action that needs a reason without one; the dialog
 * says so first. Extra fields (an amount, an expiry) come as children.
 */
export function ActionDialog({
  open,
  onOpenChange,
  title,
  description,
  confirmLabel,
  destructive,
  reason = 'required',
  pending,
  canConfirm = true,
  onConfirm,
  children,
}: {
  open: boolean
  onOpenChange: (open: boolean) => void
  title: string
  description?: React.ReactNode
  confirmLabel: string
  destructive?: boolean
  reason?: 'required' | 'optional' | 'none'
  pending?: boolean
  canConfirm?: boolean
  onConfirm: (reason: string) => Promise<unknown>
  children?: React.ReactNode
}) {
  const [text, setText] = useState('')
  const missing = reason === 'required' && text.trim() === ''
  const close = (o: boolean) => {
    if (!o) setText('')
    onOpenChange(o)
  }
  return (
    <Dialog open={open} onOpenChange={close}>
      <DialogContent>
        <form
          className="grid gap-4"
          onSubmit={(e) => {
            e.preventDefault()
            if (missing || !canConfirm) return
            void onConfirm(text.trim()).then(() => close(false), () => undefined)
          }}
        >
          <DialogHeader>
            <DialogTitle>{title}</DialogTitle>
            {description && <DialogDescription>{description}</DialogDescription>}
          </DialogHeader>
          {children}
          {reason !== 'none' && (
            <div className="grid gap-1">
              <Label htmlFor="admin-reason">Reason{reason === 'optional' ? ' (optional)' : ''}</Label>
              <Textarea id="admin-reason" value={text} onChange={(e) => setText(e.target.value)} maxLength={500} rows={3} />
              {missing && <p className="text-xs text-muted-foreground">A reason is required; it is kept in the audit log.</p>}
            </div>
          )}
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => close(false)}>
              Cancel
            </Button>
            <Button type="submit" variant={destructive ? 'destructive' : 'default'} disabled={missing || !canConfirm || pending}>
              {pending ? 'Working…' : confirmLabel}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  )
}
