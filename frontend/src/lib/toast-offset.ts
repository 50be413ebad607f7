// Where toasts sit. The spec puts them bottom-right; on a phone the bottom
// navigation and the player bar are there, so toasts stack above them
// instead of covering them.

/** BOTTOM_NAV_PX is the mobile bottom navigation's height (h-16). */
export const BOTTOM_NAV_PX = 64
/** PLAYER_ROOM_PX is the room the body reserves for the player (spec: 156 px mobile, 96 px desktop). */
export const PLAYER_ROOM_PX = { mobile: 156, desktop: 96 } as const
/** TOAST_GAP_PX is the space between toasts and what they sit above. */
export const TOAST_GAP_PX = 12
/** DESKTOP_EDGE_PX is sonner's own distance from the window's edges on a desktop. */
export const DESKTOP_EDGE_PX = 24

/**
 * toastBottom is the toasts' distance from the bottom of the window: above
 * the bottom navigation (and the player bar when a track is loaded) on a
 * phone, above the player bar on a desktop.
 */
export function toastBottom({ mobile, player }: { mobile: boolean; player: boolean }): number {
  if (mobile) return player ? PLAYER_ROOM_PX.mobile : BOTTOM_NAV_PX + TOAST_GAP_PX
  return player ? PLAYER_ROOM_PX.desktop : DESKTOP_EDGE_PX
}
