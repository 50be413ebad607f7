import { useEffect, useEffectEvent } from 'react'
import { deviceId } from '@/lib/device-id'
import { supabase } from '@/lib/supabase'

/** HEARTBEAT_MS and ACTIVITY_DEBOUNCE_MS are the session-tracking timings of spec section 9. */
export const HEARTBEAT_MS = 2 * 60_000
export const ACTIVITY_DEBOUNCE_MS = 30_000

/**
 * useSessionHeartbeat registers this device's session while a user is signed
 * in: at once (unless `recorded` says the app shell's bootstrap just did),
 * every 2 minutes, 30 s after the last activity and when the page becomes
 * visible. Cleanup removes the session. Errors are only logged.
 */
export function useSessionHeartbeat(userId: string | undefined, recorded = false) {
  // Read when the heartbeat starts; a later change does not restart it.
  const firstBeatDone = useEffectEvent(() => recorded)
  useEffect(() => {
    if (!userId) return
    const sb = supabase()
    const sessionId = deviceId()
    // The server records the address the gateway saw, not one sent by the app.
    const beat = () =>
      void sb
        .rpc('upsert_user_session', { p_user_id: userId, p_session_id: sessionId, p_device_info: navigator.userAgent })
        .then(({ error }) => error && console.warn('session heartbeat', error.message))
    if (!firstBeatDone()) beat()
    const interval = window.setInterval(beat, HEARTBEAT_MS)
    let debounce: number | undefined
    const onActivity = () => {
      window.clearTimeout(debounce)
      debounce = window.setTimeout(beat, ACTIVITY_DEBOUNCE_MS)
    }
    const onVisible = () => document.visibilityState === 'visible' && beat()
    const events = ['mousemove', 'keydown', 'scroll', 'touchstart', 'click'] as const
    events.forEach((e) => window.addEventListener(e, onActivity, { passive: true }))
    document.addEventListener('visibilitychange', onVisible)
    return () => {
      window.clearInterval(interval)
      window.clearTimeout(debounce)
      events.forEach((e) => window.removeEventListener(e, onActivity))
      document.removeEventListener('visibilitychange', onVisible)
      void sb.rpc('remove_user_session', { p_session_id: sessionId }).then(({ error }) => error && console.warn('remove session', error.message))
    }
  }, [userId])
}
