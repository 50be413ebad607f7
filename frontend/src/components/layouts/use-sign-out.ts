import { useNavigate } from 'react-router'
import { toast } from '@/lib/toast'
import { signOut } from '@/lib/auth'

/** useSignOut signs out with the spec's toasts and goes home. */
export function useSignOut() {
  const navigate = useNavigate()
  return async () => {
    const { ok } = await signOut()
    if (!ok) {
      toast.error('Error signing out. Please try again.')
      return
    }
    toast.success('Signed out successfully')
    navigate('/')
  }
}
