import { queryOptions } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'
import { PAGE_SIZE } from '../lib/keyset'
import type { LedgerRecount, LedgerSummary } from '../lib/ledger'
import { ADMIN_KEY, keysetList, unwrap, type RowOf } from './rpc'

/** CashoutRow is one cash-out request in the admin list. */
export type CashoutRow = RowOf<'admin_list_cashouts'>

/** cashoutsQuery lists requests: pending oldest first (the queue), others newest first. */
export const cashoutsQuery = (status: string) =>
  keysetList<CashoutRow>(['cashouts', status], async (after) =>
    unwrap(
      await supabase().rpc('admin_list_cashouts', {
        // The function's default is the pending queue; "all" is an explicit null.
        p_status: (status || null) as string,
        p_cursor_created: after?.created_at,
        p_cursor_id: after?.id,
        p_limit: PAGE_SIZE,
      }),
    ),
  )

/** CashoutTotals is admin_cashout_totals' answer. */
export interface CashoutTotals {
  pending: { count: number; amount: number; oldest: string | null }
  days: { day: string; requested_count: number; requested_amount: number; completed_count: number; completed_amount: number; rejected_count: number; rejected_amount: number }[]
}

/** cashoutTotalsQuery reads per-day totals for the last two weeks. */
export const cashoutTotalsQuery = () =>
  queryOptions({
    queryKey: [ADMIN_KEY, 'cashoutTotals'],
    queryFn: async () => unwrap(await supabase().rpc('admin_cashout_totals', { p_days: 14 })) as unknown as CashoutTotals,
  })

/** completeCashout pays a request out. */
export const completeCashout = async (v: { id: string }) => unwrap(await supabase().rpc('complete_cashout', { p_id: v.id }))

/** rejectCashout returns the held amount, with a reason. */
export const rejectCashout = async (v: { id: string; reason: string }) =>
  unwrap(await supabase().rpc('reject_cashout', { p_id: v.id, p_reason: v.reason }))

/** LedgerRow is one ledger movement. */
export type LedgerRow = RowOf<'admin_list_transactions'>

/** LedgerFilters are the ledger's filters (from and to are instants). */
export interface LedgerFilters {
  kind?: string
  userId?: string
  reference?: string
  from?: string
  to?: string
}

/** fetchLedgerPage reads one page of the ledger after a row (null: the first page). */
export async function fetchLedgerPage(f: LedgerFilters, after: LedgerRow | null, limit = PAGE_SIZE): Promise<LedgerRow[]> {
  return unwrap(
    await supabase().rpc('admin_list_transactions', {
      p_kind: f.kind || undefined,
      p_user_id: f.userId || undefined,
      p_reference: f.reference || undefined,
      p_from: f.from,
      p_to: f.to,
      p_before_created: after?.created_at,
      p_before_id: after?.id,
      p_limit: limit,
    }),
  )
}

/** ledgerQuery lists movements newest first by keyset. */
export const ledgerQuery = (f: LedgerFilters) => keysetList<LedgerRow>(['ledger', f], (after) => fetchLedgerPage(f, after))

/** ledgerSummaryQuery checks the ledger-wide invariant. */
export const ledgerSummaryQuery = () =>
  queryOptions({
    queryKey: [ADMIN_KEY, 'ledgerSummary'],
    queryFn: async () => unwrap(await supabase().rpc('admin_ledger_summary')) as unknown as LedgerSummary,
  })

/** recountLedger counts the whole ledger again (admin_ledger_recheck), beside the on-load check's running totals. */
export async function recountLedger(): Promise<LedgerRecount> {
  return unwrap(await supabase().rpc('admin_ledger_recheck')) as unknown as LedgerRecount
}

/** EXPORT_LIMIT caps a CSV export; narrow the filters for more. */
export const EXPORT_LIMIT = 20_000

/** exportLedger reads every movement matching the filters (up to EXPORT_LIMIT) in 200-row pages. */
export async function exportLedger(f: LedgerFilters, onProgress?: (rows: number) => void): Promise<{ rows: LedgerRow[]; truncated: boolean }> {
  const rows: LedgerRow[] = []
  let after: LedgerRow | null = null
  for (;;) {
    const page: LedgerRow[] = await fetchLedgerPage(f, after, 200)
    rows.push(...page)
    onProgress?.(rows.length)
    if (page.length < 200) return { rows, truncated: false }
    if (rows.length >= EXPORT_LIMIT) return { rows: rows.slice(0, EXPORT_LIMIT), truncated: true }
    after = page[page.length - 1]
  }
}
