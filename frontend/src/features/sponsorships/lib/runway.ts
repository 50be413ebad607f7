// A sponsor's runway: how many sponsored streams the balance still pays
// for, and how many days that lasts at the recent pace.

/** Runway is what the dashboard shows under the balance. */
export interface Runway {
  streamsLeft: number
  /** daysLeft is null when nothing was spent in the window (no pace to go by). */
  daysLeft: number | null
}

/**
 * runway divides the balance by the per-stream payment, and by the average
 * daily spend of the last windowDays days.
 */
export function runway(balance: number, perStream: number, spentInWindow: number, windowDays = 7): Runway {
  const b = Math.max(0, balance)
  const streamsLeft = perStream > 0 ? Math.floor(b / perStream) : 0
  const daily = windowDays > 0 ? spentInWindow / windowDays : 0
  return { streamsLeft, daysLeft: daily > 0 ? Math.round((b / daily) * 10) / 10 : null }
}

/** runwayText words a runway for the dashboard. */
export function runwayText(r: Runway): string {
  const streams = `${r.streamsLeft.toLocaleString('en-NG')} stream${r.streamsLeft === 1 ? '' : 's'} left`
  if (r.daysLeft === null) return `${streams} · no spending in the last 7 days`
  return `${streams} · about ${r.daysLeft < 1 ? 'less than a day' : `${r.daysLeft} day${r.daysLeft === 1 ? '' : 's'}`} at the current pace`
}

/** LOW_BALANCE is spec section 9's low-balance threshold in naira. */
export const LOW_BALANCE = 100

/** isLowBalance: under ₦100 the dashboard warns. */
export const isLowBalance = (balance: number, threshold = LOW_BALANCE) => balance < threshold
