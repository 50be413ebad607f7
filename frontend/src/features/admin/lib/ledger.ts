// The ledger-wide invariant as admin_ledger_summary reports it.

/** LedgerSummary is the shape of admin_ledger_summary's answer. */
export interface LedgerSummary {
  wallets: { total: number; users: number; negative: number; accounts: Record<string, number> }
  ledger: { count: number; users_net: number }
  balanced: boolean
  checked_at: string
}

/** LedgerCheck is what the transactions page shows about the invariant. */
export interface LedgerCheck {
  ok: boolean
  /** problems lists every broken rule in words; empty when ok. */
  problems: string[]
  usersHold: number
  ledgerNet: number
}

/**
 * checkLedger re-derives the verdict from the figures (so a summary whose
 * flag disagrees with its own numbers is reported too): all wallets sum to
 * zero, no internal wallet is negative, and what users hold equals the
 * ledger's net movement into user wallets.
 */
export function checkLedger(s: LedgerSummary): LedgerCheck {
  const problems: string[] = []
  const cents = (n: number) => Math.round(Number(n) * 100)
  if (cents(s.wallets.total) !== 0) problems.push(`Wallets sum to ${s.wallets.total}, not 0`)
  if (Number(s.wallets.negative) > 0) problems.push(`${s.wallets.negative} internal wallet(s) are negative`)
  if (cents(s.wallets.users) !== cents(s.ledger.users_net)) {
    problems.push(`Users hold ${s.wallets.users} but the ledger's net into user wallets is ${s.ledger.users_net}`)
  }
  if (!s.balanced && problems.length === 0) problems.push('The database reports the ledger as unbalanced')
  return { ok: problems.length === 0, problems, usersHold: Number(s.wallets.users), ledgerNet: Number(s.ledger.users_net) }
}

/** LedgerRecount is admin_ledger_recheck's answer: the summary counted in full, set against the running totals. */
export interface LedgerRecount extends LedgerSummary {
  totals_match: boolean
  mismatched_wallets: { count: number }
}

/**
 * recountProblems lists what the full recount found in words: the on-load
 * check reads running totals, and only a full count sees a wallet that
 * disagrees with its own ledger rows or totals that drifted.
 */
export function recountProblems(r: LedgerRecount): string[] {
  // The database's own verdict covers these causes; it is named only when none is.
  const problems = checkLedger({ ...r, balanced: true }).problems
  if (!r.totals_match) problems.push('The running totals differ from a full count of the ledger')
  const off = Number(r.mismatched_wallets?.count ?? 0)
  if (off > 0) problems.push(`${off} wallet(s) differ from their own ledger movements`)
  if (!r.balanced && problems.length === 0) problems.push('The database reports the ledger as unbalanced')
  return problems
}
