import { queryOptions, useQuery } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'

/** AppSettings are the coming-soon switches. */
export interface AppSettings {
  comingSoon: boolean
  countdownTarget: string
}

/**
 * getAppSettings reads both settings in parallel. Errors are logged: coming
 * soon is then off and the countdown date empty.
 */
export async function getAppSettings(): Promise<AppSettings> {
  const sb = supabase()
  const [flag, text] = await Promise.all([
    sb.rpc('get_app_setting', { setting_key: 'coming_soon_enabled' }),
    sb.rpc('get_app_text_setting', { setting_key: 'countdown_target_date' }),
  ])
  if (flag.error) console.warn('coming soon status', flag.error.message)
  if (text.error) console.warn('countdown date', text.error.message)
  return {
    comingSoon: !flag.error && flag.data === true,
    countdownTarget: text.error || typeof text.data !== 'string' ? '' : text.data,
  }
}

/** appSettingsQueryKey is the settings' cache (the app shell's bootstrap seeds it). */
export const appSettingsQueryKey = ['appSettings'] as const

/** appSettingsQueryOptions caches the settings for 5 minutes. */
export const appSettingsQueryOptions = () =>
  queryOptions({ queryKey: appSettingsQueryKey, queryFn: getAppSettings, staleTime: 5 * 60_000, gcTime: 10 * 60_000, retry: 0 })

const REMEMBERED = 'backline-coming-soon'

/**
 * rememberComingSoon keeps the last coming-soon answer on the device, so the
 * next start knows it before asking (the gate renders the page at once
 * unless the last answer was "on").
 */
export function rememberComingSoon(on: boolean) {
  try {
    if (on) localStorage.setItem(REMEMBERED, '1')
    else localStorage.removeItem(REMEMBERED)
  } catch {
    // Storage may be unavailable in private modes.
  }
}

/** rememberedComingSoon is the last coming-soon answer this device saw (false when none). */
export function rememberedComingSoon(): boolean {
  try {
    return localStorage.getItem(REMEMBERED) === '1'
  } catch {
    return false
  }
}

/** useAppSettings reads the coming-soon settings once enabled. */
export const useAppSettings = (enabled = true) => useQuery({ ...appSettingsQueryOptions(), enabled })
