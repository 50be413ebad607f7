import { useQuery } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'
import type { VerificationPayment } from '../lib/verification'

/** DEFAULT_RENEWAL_DAYS is the renewal window when the setting cannot be read (the server's default). */
export const DEFAULT_RENEWAL_DAYS = 30

/** useVerificationStatus reads the user's verification (flag and expiry) and the renewal window. */
export function useVerificationStatus(userId: string | undefined) {
  return useQuery({
    queryKey: ['ownProfile', userId, 'verification'],
    enabled: !!userId,
    queryFn: async () => {
      const sb = supabase()
      const [profile, days] = await Promise.all([
        sb.from('public_profiles').select('is_verified, verification_expires_at').eq('id', userId!).maybeSingle(),
        sb.rpc('get_app_text_setting', { setting_key: 'verification_renewal_days' }),
      ])
      if (profile.error) throw profile.error
      const n = Number(days.data)
      return {
        isVerified: !!profile.data?.is_verified,
        expiresAt: profile.data?.verification_expires_at ?? null,
        renewalDays: !days.error && Number.isFinite(n) && n > 0 ? n : DEFAULT_RENEWAL_DAYS,
      }
    },
  })
}

/**
 * useVerificationPayment reads the user's verification payment: the one a
 * checkout returned with (reference), else the newest, with whether it
 * granted the badge (a verification row made from it). Read again every 2 s
 * while `watch` holds (the payment is being confirmed).
 */
export function useVerificationPayment(userId: string | undefined, reference: string | null, watch: (p: VerificationPayment | null | undefined) => boolean) {
  return useQuery({
    queryKey: ['verificationPayment', userId, reference],
    enabled: !!userId,
    refetchInterval: (q) => (watch(q.state.data) ? 2000 : false),
    queryFn: async (): Promise<VerificationPayment | null> => {
      const sb = supabase()
      let q = sb.from('payments').select('id, status, purpose, completed_at').eq('user_id', userId!).eq('purpose', 'verification')
      if (reference) q = q.eq('tx_ref', reference)
      const { data, error } = await q.order('created_at', { ascending: false }).limit(1).maybeSingle()
      if (error) throw error
      if (!data) return null
      let granted = false
      if (data.status === 'successful') {
        const v = await sb.from('verifications').select('id').eq('payment_id', data.id).limit(1)
        if (v.error) throw v.error
        granted = v.data.length > 0
      }
      return { status: data.status, purpose: data.purpose, completed_at: data.completed_at, granted }
    },
  })
}
