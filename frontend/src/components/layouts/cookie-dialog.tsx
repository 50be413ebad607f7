import { useEffect, useState } from 'react'
import { Link } from 'react-router'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'

/** COOKIE_KEY stores 'accepted' or 'declined'. */
export const COOKIE_KEY = 'cookie-consent'
/** COOKIE_DELAY_MS: the dialog opens 2 s after load when nothing is stored. */
export const COOKIE_DELAY_MS = 2000

/** CookieDialog asks for cookie consent once. */
export function CookieDialog() {
  const [open, setOpen] = useState(false)
  useEffect(() => {
    if (localStorage.getItem(COOKIE_KEY)) return
    const t = window.setTimeout(() => setOpen(true), COOKIE_DELAY_MS)
    return () => window.clearTimeout(t)
  }, [])
  const choose = (v: 'accepted' | 'declined') => {
    localStorage.setItem(COOKIE_KEY, v)
    setOpen(false)
  }
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogContent hideClose onInteractOutside={(e) => e.preventDefault()} data-testid="cookie-dialog">
        <DialogHeader>
          <DialogTitle>We use cookies</DialogTitle>
          <DialogDescription>
            Backline uses essential cookies and local storage to keep you signed in, remember your player settings and protect payments from
            fraud. With your consent we also use analytics to improve the service. Read our{' '}
            <Link to="/privacy" className="text-primary underline" onClick={() => setOpen(false)}>
              Privacy Policy
            </Link>
            .
          </DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <Button variant="outline" onClick={() => choose('declined')}>
            Essential Only
          </Button>
          <Button onClick={() => choose('accepted')}>Accept All</Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}
