import { useLocation, useNavigate } from 'react-router'
import { toast } from '@/lib/toast'
import { signOut } from '@/lib/sign-out'

/** useSignOut signs out with the spec's toasts and goes home. */
export function useSignOut() {
  const navigate = useNavigate()
  const { key } = useLocation()
  return async () => {
    const { ok } = await signOut(key)
    if (!ok) {
      toast.error('Error signing out. Please try again.')
      return
    }
    toast.success('Signed out successfully')
    // In place of the signed-in page: Back does not lead to it.
    void navigate('/', { replace: true })
  }
}
