import { useEffect, useState } from 'react'
import { Download, X } from 'lucide-react'
import { toast } from '@/lib/toast'
import { Button } from '@/components/ui/button'

/** INSTALL_DISMISS_KEY stores the dismissal time in ms; it suppresses the prompt for 7 days. */
export const INSTALL_DISMISS_KEY = 'pwa-install-dismissed'
const SUPPRESS_MS = 7 * 24 * 3600 * 1000

interface BeforeInstallPromptEvent extends Event {
  prompt: () => Promise<void>
  userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>
}

/** installSuppressed: dismissed less than 7 days ago. */
export function installSuppressed(dismissedAt: string | null, now = Date.now()): boolean {
  const t = Number(dismissedAt)
  return !!dismissedAt && Number.isFinite(t) && now - t < SUPPRESS_MS
}

/** InstallPrompt offers installation when the browser signals installability. */
export function InstallPrompt() {
  const [event, setEvent] = useState<BeforeInstallPromptEvent | null>(null)
  const [installing, setInstalling] = useState(false)
  useEffect(() => {
    const onPrompt = (e: Event) => {
      e.preventDefault()
      if (!installSuppressed(localStorage.getItem(INSTALL_DISMISS_KEY))) setEvent(e as BeforeInstallPromptEvent)
    }
    window.addEventListener('beforeinstallprompt', onPrompt)
    return () => window.removeEventListener('beforeinstallprompt', onPrompt)
  }, [])
  if (!event) return null

  const dismiss = () => {
    localStorage.setItem(INSTALL_DISMISS_KEY, String(Date.now()))
    setEvent(null)
  }
  const install = async () => {
    setInstalling(true)
    try {
      await event.prompt()
      const { outcome } = await event.userChoice
      if (outcome === 'accepted') {
        toast.success('App Installed!', { description: 'Backline has been added to your home screen.' })
        setEvent(null)
      } else {
        toast.info('Installation Cancelled', { description: 'You can install the app later from your browser menu' })
      }
    } catch {
      toast.error('Installation Failed', { description: 'There was an error installing the app. Please try again.' })
    } finally {
      setInstalling(false)
    }
  }
  return (
    <div className="fixed bottom-40 left-4 right-4 z-50 rounded-xl border border-border bg-card p-4 shadow-xl md:bottom-28 md:left-auto md:w-80" data-testid="install-prompt">
      <button type="button" onClick={dismiss} className="absolute right-3 top-3 text-muted-foreground" aria-label="Close">
        <X className="size-4" />
      </button>
      <p className="font-semibold">Install Backline</p>
      <p className="mt-1 text-sm text-muted-foreground">Add Backline to your home screen for quick access and offline browsing.</p>
      <div className="mt-3 flex gap-2">
        <Button size="sm" onClick={() => void install()} disabled={installing}>
          <Download /> {installing ? 'Installing...' : 'Install'}
        </Button>
        <Button size="sm" variant="ghost" onClick={dismiss}>
          Later
        </Button>
      </div>
    </div>
  )
}
