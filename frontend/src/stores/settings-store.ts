import { create } from 'zustand'
import { createJSONStorage, persist } from 'zustand/middleware'
import { SETTINGS_STORAGE_KEY } from '@/lib/data-saver'

// The listener's settings kept on the device: the data saver, the space
// downloads may take, and whether the offline-play notice was shown.

/** DEFAULT_OFFLINE_LIMIT_MB is the space downloads may use until the fan sets another. */
export const DEFAULT_OFFLINE_LIMIT_MB = 500

interface SettingsState {
  /** dataSaver: no autoplay of previews, low-resolution covers, downloads on Wi-Fi only. */
  dataSaver: boolean
  offlineLimitMb: number
  offlineNoticeShown: boolean
  setDataSaver: (on: boolean) => void
  setOfflineLimitMb: (mb: number) => void
  markOfflineNoticeShown: () => void
}

/** useSettingsStore holds the listener's device settings. */
export const useSettingsStore = create<SettingsState>()(
  persist(
    (set) => ({
      dataSaver: false,
      offlineLimitMb: DEFAULT_OFFLINE_LIMIT_MB,
      offlineNoticeShown: false,
      setDataSaver: (dataSaver) => set({ dataSaver }),
      setOfflineLimitMb: (offlineLimitMb) => set({ offlineLimitMb }),
      markOfflineNoticeShown: () => set({ offlineNoticeShown: true }),
    }),
    { name: SETTINGS_STORAGE_KEY, storage: createJSONStorage(() => localStorage) },
  ),
)
