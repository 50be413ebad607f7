import { useQuery } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'
import type { VerificationPayment } from '../lib/verification'

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
