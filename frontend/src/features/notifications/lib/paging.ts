/** PAGE_SIZE and MAX_PAGE_BUTTONS are the notifications panel's paging constants. */
export const PAGE_SIZE = 5
export const MAX_PAGE_BUTTONS = 5

/** badgeText caps the unread count at 99+; zero shows nothing. */
export function badgeText(unread: number): string | null {
  if (unread <= 0) return null
  return unread > 99 ? '99+' : String(unread)
}

/** pageButtons returns up to 5 page numbers centred on the current page (1-based). */
export function pageButtons(page: number, total: number): number[] {
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE))
  const count = Math.min(MAX_PAGE_BUTTONS, pages)
  const start = Math.min(Math.max(1, page - Math.floor(count / 2)), pages - count + 1)
  return Array.from({ length: count }, (_, i) => start + i)
}
