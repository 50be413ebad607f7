import type { ReactNode } from 'react'
import { Button } from './button'
import { Dialog, DialogContent } from './dialog'
import { ErrorText } from './misc'

/**
 * FormDialog is a modal form: its fields, the server's refusal when there
 * is one, and Cancel beside a submit button naming what it does.
 */
export function FormDialog({
  title,
  description,
  className,
  submit,
  pending,
  error,
  onSubmit,
  onClose,
  children,
}: {
  title: string
  description?: string
  className?: string
  submit: string
  pending?: boolean
  error?: unknown
  onSubmit: () => void
  onClose: () => void
  children: ReactNode
}) {
  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent className={className} title={title} description={description}>
        <form
          className="flex flex-col gap-2"
          onSubmit={(e) => {
            e.preventDefault()
            onSubmit()
          }}
        >
          {children}
          <ErrorText error={error} />
          <div className="flex justify-end gap-2">
            <Button type="button" variant="outline" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={pending}>
              {submit}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  )
}
