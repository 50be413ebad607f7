import { lazy, Suspense, useEffect } from 'react'
import { QueryClientProvider } from '@tanstack/react-query'
import { useIsMobile } from '@/hooks/use-media-query'
import { useAuthStore } from '@/lib/auth'
import { queryClient } from '@/lib/query-client'
import { supabase } from '@/lib/supabase'
import { toastBottom } from '@/lib/toast-offset'
import { usePlayer } from '@/stores/deferred'
import { loadShell } from './bootstrap'

// The toaster is not part of the first paint: it loads right after, and
// shows any toast raised before it mounted.
const Toaster = lazy(() => import('@/components/ui/sonner').then((m) => ({ default: m.Toaster })))

/**
 * AuthListener is the single onAuthStateChange subscriber (spec section 4):
 * it mirrors the session, re-fetches the role on every change (with the
 * rest of the app shell's data, app/bootstrap.ts) and clears everything on
 * sign-out.
 */
function AuthListener() {
  useEffect(() => {
    const store = useAuthStore.getState
    const { data } = supabase().auth.onAuthStateChange((event, session) => {
      if (event === 'SIGNED_OUT') {
        store().clear()
        queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'appSettings' })
        store().setLoading(false)
        return
      }
      if (event === 'PASSWORD_RECOVERY') store().setRecovering(true)
      store().setSession(session)
      const userId = session?.user.id
      // Supabase warns against awaiting other client calls inside the callback.
      setTimeout(async () => {
        const role = await loadShell(userId, event === 'INITIAL_SESSION')
        if (useAuthStore.getState().user?.id === userId) store().setRole(role, userId ?? null)
        if (event === 'INITIAL_SESSION') store().setLoading(false)
      }, 0)
    })
    return () => data.subscription.unsubscribe()
  }, [])
  return null
}

/** Toasts keeps the toasts clear of the bottom navigation and the player bar. */
function Toasts() {
  const mobile = useIsMobile()
  const player = usePlayer((s) => !!s.currentTrack, false)
  return (
    <Suspense fallback={null}>
      <Toaster bottom={toastBottom({ mobile, player })} />
    </Suspense>
  )
}

/** AppProvider wires the query cache, toasts and the auth listener (tooltips bring their own provider). */
export function AppProvider({ children }: { children: React.ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <AuthListener />
      {children}
      <Toasts />
    </QueryClientProvider>
  )
}
