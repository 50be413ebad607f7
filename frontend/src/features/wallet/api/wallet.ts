import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { refreshMoney } from '@/lib/money-cache'
import { supabase } from '@/lib/supabase'
import { VERIFICATION_RENEWAL_DAYS, type VerificationState } from '../lib/checkout'
import type { CashoutInput } from '../lib/cashout'
import type { StatementPeriod, StatementRow } from '../lib/statement'

// Wallet calls: the bank list, cash-out requests, the ledger, the earnings
// statement and card top-ups. The database holds every rule; refusals come
// back as P0001 errors whose message is the text to show.

/** useBanks reads the banks a cash-out may go to. */
export const useBanks = (enabled: boolean) =>
  useQuery({
    queryKey: ['banks'],
    enabled,
    staleTime: 60 * 60_000,
    queryFn: async () => {
      const { data, error } = await supabase().from('banks').select('name').order('name')
      if (error) throw error
      return (data as { name: string }[]).map((b) => b.name)
    },
  })

/** useRequestCashout asks for a cash-out; the amount is held at once. */
export function useRequestCashout() {
  const qc = useQueryClient()
  return useMutation({
    retry: false,
    mutationFn: async (v: CashoutInput) => {
      const { data, error } = await supabase().rpc('request_cashout', {
        p_amount: v.amount,
        p_bank_name: v.bank,
        p_account_number: v.accountNumber.trim(),
        p_account_name: v.accountName,
      })
      if (error) throw new Error(error.message)
      return data as { id: string; amount: number; balance: number }
    },
    onSuccess: () => refreshMoney(qc),
  })
}

/** LedgerRow is a transactions row. */
export interface LedgerRow {
  id: string
  reference: string
  kind: string
  amount: number
  from_wallet: string
  to_wallet: string
  from_balance_after: number
  to_balance_after: number
  created_at: string
  track_id: string | null
}

/** LedgerFilter narrows the ledger. */
export interface LedgerFilter {
  kind?: string
  from?: string
  to?: string
}

/** LEDGER_KINDS are the movement kinds with their labels. */
export const LEDGER_KINDS: Record<string, string> = {
  sponsored_stream: 'Sponsored stream',
  topup: 'Top-up',
  cashout_hold: 'Cash-out (held)',
  cashout_paid: 'Cash-out paid',
  cashout_release: 'Cash-out returned',
  transfer: 'Transfer',
  adjustment: 'Adjustment',
}

/**
 * fetchLedger reads one page of the caller's own movements, newest first, with the count
 * (rpc get_wallet_history: each side of the ledger along its own index, so a page costs what
 * the user's rows cost; an admin, whom RLS lets read every row, gets their own wallet too).
 */
export async function fetchLedger(f: LedgerFilter, page: number, size: number) {
  const { data, error } = await supabase().rpc('get_wallet_history', {
    p_kind: f.kind || undefined,
    p_from: f.from ? `${f.from}T00:00:00+01:00` : undefined,
    p_to: f.to ? new Date(new Date(`${f.to}T00:00:00+01:00`).getTime() + 86_400_000).toISOString() : undefined,
    p_offset: page * size,
    p_limit: size,
  })
  if (error) throw error
  const r = data as unknown as { count: number; rows: LedgerRow[] }
  return { rows: r.rows, count: Number(r.count) }
}

/** useLedger is the "transactions" cache, one page at a time, read once enabled. */
export const useLedger = (userId: string | undefined, f: LedgerFilter, page: number, size = 20, enabled = true) =>
  useQuery({
    queryKey: ['transactions', userId, f, page, size],
    enabled: !!userId && enabled,
    placeholderData: keepPreviousData,
    queryFn: () => fetchLedger(f, page, size),
  })

/** statementQueryKey is the cache of a statement (under artistWallet, so money changes refresh it). */
export const statementQueryKey = (userId: string | undefined, period: StatementPeriod, from: string, to: string) =>
  ['artistWallet', userId, 'statement', period, from, to] as const

/** statementRows turns get_earnings_statement's rows (numerics as strings) into numbers. */
export const statementRows = (rows: StatementRow[]): StatementRow[] => rows.map((r) => ({ ...r, streams: Number(r.streams), amount: Number(r.amount) }))

/** useStatement reads the earnings statement for a period and range. */
export const useStatement = (userId: string | undefined, period: StatementPeriod, from: string, to: string) =>
  useQuery({
    queryKey: statementQueryKey(userId, period, from, to),
    enabled: !!userId,
    queryFn: async () => {
      const { data, error } = await supabase().rpc('get_earnings_statement', { p_period: period, p_from: from, p_to: to })
      if (error) throw error
      return statementRows(data as StatementRow[])
    },
  })

/** startTopup opens a card checkout for a wallet top-up and returns its URL. */
export async function startTopup(amount: number): Promise<string> {
  const { data, error } = await supabase().functions.invoke('create-payment', { body: { provider: 'flutterwave', purpose: 'topup', amount } })
  if (error) {
    let msg = 'Could not start the payment. Please try again.'
    try {
      msg = ((await (error as { context?: Response }).context?.json()) as { error?: string })?.error ?? msg
    } catch {
      // Keep the generic text.
    }
    throw new Error(msg)
  }
  if (!data?.checkout_url) throw new Error(data?.error ?? 'Could not start the payment. Please try again.')
  return data.checkout_url as string
}

/** verificationQueryKey is the cache of a user's verification state. */
export const verificationQueryKey = (userId: string | undefined) => ['verification', userId] as const

/**
 * useVerificationState reads whether the user is verified and until when,
 * and the renewal window the server is configured with (the verification
 * page's offer).
 */
export const useVerificationState = (userId: string | undefined) =>
  useQuery({
    queryKey: verificationQueryKey(userId),
    enabled: !!userId,
    queryFn: async (): Promise<VerificationState> => {
      const sb = supabase()
      const [profile, days] = await Promise.all([
        sb.from('public_profiles').select('is_verified, verification_expires_at').eq('id', userId!).maybeSingle(),
        sb.rpc('get_app_text_setting', { setting_key: 'verification_renewal_days' }),
      ])
      if (profile.error) throw profile.error
      const n = Number(days.data)
      return {
        is_verified: profile.data?.is_verified ?? false,
        verification_expires_at: profile.data?.verification_expires_at ?? null,
        renewal_days: !days.error && Number.isFinite(n) && n > 0 ? n : VERIFICATION_RENEWAL_DAYS,
      }
    },
  })
