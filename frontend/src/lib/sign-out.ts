import { deviceId } from '@/lib/device-id'
import { supabase } from '@/lib/supabase'
import { useAuthStore } from './auth'

// Signing out is not part of the first paint: this module loads with the
// menus that offer it.

/**
 * signOut ends the session; the listener clears the store. `from` is the
 * history entry it starts on: the page there, if signed-in only, leaves
 * for home instead of asking for a sign-in (app/guards.tsx). The device
 * forgets the listener's downloads, queue and player (lib/forget-device,
 * loaded only then).
 */
export async function signOut(from: string | null = null): Promise<{ ok: boolean }> {
  useAuthStore.getState().setSignedOutFrom(from)
  // Remove the session record while the token is still valid.
  const removed = await supabase().rpc('remove_user_session', { p_session_id: deviceId() })
  if (removed.error) console.warn('remove session', removed.error.message)
  const { error } = await supabase().auth.signOut()
  if (error) {
    useAuthStore.getState().setSignedOutFrom(null)
    return { ok: false }
  }
  useAuthStore.getState().clear()
  await (await import('./forget-device')).forgetDevice()
  return { ok: true }
}
