import { supabase } from '@/lib/supabase'
import { PAGE_SIZE } from '../lib/keyset'
import { keysetList, unwrap, type RowOf } from './rpc'

/** KycRow is one KYC submission. */
export type KycRow = RowOf<'admin_list_kyc'>

/** VerificationRow is one paid verification. */
export type VerificationRow = RowOf<'admin_list_verifications'>

/** kycQuery lists submissions: pending oldest first, decided ones newest first. */
export const kycQuery = (status: string) =>
  keysetList<KycRow>(['kyc', status], async (after) =>
    unwrap(
      await supabase().rpc('admin_list_kyc', {
        p_status: (status || null) as string,
        p_cursor_created: after?.created_at,
        p_cursor_id: after?.id,
        p_limit: PAGE_SIZE,
      }),
    ),
  )

/** verificationsQuery lists paid verifications newest first. */
export const verificationsQuery = () =>
  keysetList<VerificationRow>(['verifications'], async (after) =>
    unwrap(
      await supabase().rpc('admin_list_verifications', {
        p_before_granted: after?.granted_at,
        p_before_id: after?.id,
        p_limit: PAGE_SIZE,
      }),
    ),
  )

/** reviewKyc approves (with an expiry) or rejects (with a reason) a submission. */
export const reviewKyc = async (v: { id: string; approve: boolean; expiresAt?: string; reason: string }) =>
  unwrap(
    await supabase().rpc('admin_review_kyc', {
      p_submission_id: v.id,
      p_approve: v.approve,
      p_expires_at: v.expiresAt,
      p_reason: v.reason || undefined,
    }),
  )

/** kycDocumentUrl signs a short-lived link to a submission's document in the private kyc bucket (admins may read it). */
export async function kycDocumentUrl(path: string): Promise<string> {
  const { data, error } = await supabase().storage.from('kyc').createSignedUrl(path, 300)
  if (error) throw error
  return data.signedUrl
}
