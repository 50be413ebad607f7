import { create } from 'zustand'

// Who is online, apart from the presence channel's code (use-online-presence.ts),
// which only a signed-in user's tab loads.

interface OnlineState {
  /** ids is who is present on the channel right now (live, from realtime presence). */
  ids: Set<string>
  set: (ids: Set<string>) => void
}

/** useOnlineStore holds the presence list, shared by every online dot. */
export const useOnlineStore = create<OnlineState>((set) => ({
  ids: new Set(),
  set: (ids) => set({ ids }),
}))

// The browser journeys read who is present without depending on where the
// dots are drawn.
declare global {
  interface Window {
    __backlineOnline?: () => string[]
  }
}
if (typeof window !== 'undefined') window.__backlineOnline = () => [...useOnlineStore.getState().ids]
