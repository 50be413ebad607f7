import { useEffect } from 'react'
import { useLocation, useNavigate, useSearchParams } from 'react-router'
import { toast } from 'sonner'
import { PageFallback } from '@/components/layouts/app-shell'
import { useAuthStore, useRoleSettled } from '@/lib/auth'

/** DashboardRedirect sends /dashboard to the role's dashboard (spec section 4, five rules). */
export default function DashboardRedirect() {
  const navigate = useNavigate()
  const [params] = useSearchParams()
  const user = useAuthStore((s) => s.user)
  const role = useAuthStore((s) => s.role)
  const loading = useAuthStore((s) => s.loading)
  const settled = useRoleSettled()
  const verified = params.get('verification_success') === 'true'
  // A card payment's return lands here; its redirect waits 1.5 s (spec section 4).
  const payment = ['tx_ref', 'ref', 'reference', 'trxref'].some((k) => params.has(k))
  // Every arrival re-runs the redirect: clearing the payment's query string
  // navigates to /dashboard again while this page is still mounted.
  const { key } = useLocation()

  useEffect(() => {
    if (loading || !settled) return
    if (!user) {
      toast.error('Please sign in to view your dashboard')
      navigate('/login', { replace: true })
      return
    }
    if (!user.email_confirmed_at && !user.confirmed_at) {
      toast.info('Please confirm your email address to continue')
      navigate('/', { replace: true })
      return
    }
    if (!role) {
      toast.info('Setting up your profile')
      if (verified) {
        const t = window.setTimeout(() => window.location.reload(), 2000)
        return () => window.clearTimeout(t)
      }
      navigate('/', { replace: true })
      return
    }
    const target = ['artist', 'sponsor', 'admin', 'fan'].includes(role) ? role : 'fan'
    if (verified) toast.success('Email verified successfully! Welcome to your dashboard.')
    if (!payment) {
      navigate(`/dashboard/${target}`, { replace: true })
      return
    }
    const t = window.setTimeout(() => navigate(`/dashboard/${target}`, { replace: true }), 1500)
    return () => window.clearTimeout(t)
  }, [loading, settled, user, role, verified, payment, key, navigate])
  return <PageFallback />
}
