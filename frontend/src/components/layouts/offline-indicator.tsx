import { useEffect, useState } from 'react'
import { Wifi, WifiOff } from 'lucide-react'

/** BACK_ONLINE_MS: how long "Back online" stays. */
export const BACK_ONLINE_MS = 3000

/** OfflineIndicator shows "You're offline" in yellow, then "Back online" in green for 3 s (desktop only). */
export function OfflineIndicator() {
  const [online, setOnline] = useState(() => navigator.onLine)
  const [backOnline, setBackOnline] = useState(false)
  useEffect(() => {
    let timer: number | undefined
    const up = () => {
      setOnline(true)
      setBackOnline(true)
      window.clearTimeout(timer)
      timer = window.setTimeout(() => setBackOnline(false), BACK_ONLINE_MS)
    }
    const down = () => {
      setOnline(false)
      setBackOnline(false)
    }
    window.addEventListener('online', up)
    window.addEventListener('offline', down)
    return () => {
      window.clearTimeout(timer)
      window.removeEventListener('online', up)
      window.removeEventListener('offline', down)
    }
  }, [])
  if (online && !backOnline) return null
  return (
    <div
      role="status"
      data-testid="offline-indicator"
      className={`fixed left-1/2 top-16 z-50 hidden -translate-x-1/2 items-center gap-2 rounded-full px-4 py-1.5 text-sm font-medium text-black shadow md:flex ${online ? 'bg-green-500' : 'bg-yellow-400'}`}
    >
      {online ? <Wifi className="size-4" /> : <WifiOff className="size-4" />}
      {online ? 'Back online' : "You're offline"}
    </div>
  )
}
