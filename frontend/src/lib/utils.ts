import { clsx, type ClassValue } from 'clsx'
import { twMerge } from 'tailwind-merge'

/** cn merges Tailwind class lists, later classes winning (shadcn convention). */
export function cn(...inputs: ClassValue[]) {
  return twMerge(clsx(inputs))
}

/** DEFAULT_IMAGE is the product's default image, used for missing or broken covers and avatars. */
export const DEFAULT_IMAGE = '/default-cover.png'

/** coverOrDefault replaces a missing cover, or one whose URL contains "placeholder". */
export function coverOrDefault(url: string | null | undefined): string {
  return !url || url.includes('placeholder') ? DEFAULT_IMAGE : url
}

/** vibrate gives light haptic feedback where the device supports it. */
export function vibrate(ms = 10) {
  if (typeof navigator !== 'undefined' && 'vibrate' in navigator) {
    try {
      navigator.vibrate(ms)
    } catch {
      // Some browsers throw when vibration is blocked by a permissions policy.
    }
  }
}
