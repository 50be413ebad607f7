// Cash-out form rules (spec section 9: minimum ₦1,000). The database checks
// the same rules again (sql/app/0007_dashboard_rules.sql); these only spare
// a round trip and say what is wrong next to the field.

/** isNuban: a Nigerian Uniform Bank Account Number is exactly 10 digits. */
export function isNuban(s: string): boolean {
  return /^\d{10}$/.test(s.trim())
}

/** CashoutInput is what the cash-out form collects. */
export interface CashoutInput {
  amount: number
  bank: string
  accountNumber: string
  accountName: string
}

/** CashoutErrors maps a field to its message. */
export type CashoutErrors = Partial<Record<keyof CashoutInput, string>>

/**
 * validateCashout checks an amount against the minimum and what is
 * available (the balance; held money is already out of it), and the bank
 * details. Messages match the database's.
 */
export function validateCashout(v: CashoutInput, available: number, minimum: number, banks: string[]): CashoutErrors {
  const e: CashoutErrors = {}
  if (!Number.isFinite(v.amount) || v.amount <= 0 || Math.round(v.amount * 100) !== v.amount * 100) e.amount = 'Enter a valid amount'
  else if (v.amount < minimum) e.amount = `Minimum cash-out amount is ₦${minimum.toLocaleString('en-NG')}`
  else if (v.amount > available) e.amount = `You can cash out at most ₦${available.toLocaleString('en-NG', { maximumFractionDigits: 2 })}`
  if (!banks.includes(v.bank)) e.bank = 'Choose your bank from the list'
  if (!isNuban(v.accountNumber)) e.accountNumber = 'Account number must be 10 digits'
  const name = v.accountName.trim().replace(/\s+/g, ' ')
  if (name.length < 3 || name.length > 100) e.accountName = 'Enter the account name'
  return e
}

/** canCashOut: the button is enabled only when the minimum is available. */
export const canCashOut = (available: number, minimum: number) => available >= minimum
