import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'
import { kycObjectName, type KycProfile, type KycSubmission } from '../lib/kyc'

// The artist's KYC: their profile's KYC state with the latest submission (one
// read), and a submission (the scan into the private kyc bucket, then
// submit_kyc). The database decides who may submit and when, and refuses
// with a P0001 whose message is the text to show.

/** kycQueryKey is the cache of an artist's KYC state. */
export const kycQueryKey = (userId: string | undefined) => ['kyc', userId] as const

/** KycData is the profile's KYC state and the latest submission, if any. */
export interface KycData {
  profile: KycProfile | null
  latest: KycSubmission | null
}

/** fetchKyc reads the artist profile's KYC columns with its newest submission embedded. */
export async function fetchKyc(userId: string): Promise<KycData> {
  const { data, error } = await supabase()
    .from('artist_profiles')
    .select('kyc_status, kyc_expiry_date, kyc_submissions(id, status, reason, expires_at, created_at, document_type)')
    .eq('id', userId)
    .order('created_at', { referencedTable: 'kyc_submissions', ascending: false })
    .limit(1, { referencedTable: 'kyc_submissions' })
    .maybeSingle()
  if (error) throw error
  if (!data) return { profile: null, latest: null }
  const { kyc_submissions: subs, ...profile } = data
  return { profile, latest: ((subs ?? []) as KycSubmission[])[0] ?? null }
}

/** useKyc is the artist's KYC state. */
export const useKyc = (userId: string | undefined) => useQuery({ queryKey: kycQueryKey(userId), enabled: !!userId, queryFn: () => fetchKyc(userId!) })

/** KycSubmit is a validated form. */
export interface KycSubmit {
  fullName: string
  documentType: string
  documentNumber: string
  file: File | null
}

/** useSubmitKyc uploads the scan (when there is one) and submits. */
export function useSubmitKyc(userId: string) {
  const qc = useQueryClient()
  return useMutation({
    retry: false,
    mutationFn: async (v: KycSubmit) => {
      const sb = supabase()
      let path: string | null = null
      if (v.file) {
        path = kycObjectName(userId, v.file)
        const { error } = await sb.storage.from('kyc').upload(path, v.file, { contentType: v.file.type })
        if (error) throw new Error(`The document could not be uploaded: ${error.message}`)
      }
      const { data, error } = await sb.rpc('submit_kyc', {
        p_full_name: v.fullName.trim().replace(/\s+/g, ' '),
        p_document_type: v.documentType,
        p_document_number: v.documentNumber.trim(),
        p_document_path: path ?? undefined,
      })
      if (error) throw new Error(error.message)
      return data as { id: string; status: string }
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: kycQueryKey(userId) }),
  })
}
