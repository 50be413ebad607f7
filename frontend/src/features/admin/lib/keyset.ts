// Keyset pagination: every admin list is read page by page with the sort
// key of the last row seen, never an offset. The cursor is simply the last
// row of the previous page; each api function picks the fields it needs.

/** PAGE_SIZE is the rows per page of every admin list. */
export const PAGE_SIZE = 50

/**
 * nextPageParam is TanStack Query's getNextPageParam for keyset lists: the
 * last row of a full page, or undefined when the page was short (the end).
 */
export function nextPageParam<Row>(lastPage: readonly Row[], pageSize = PAGE_SIZE): Row | undefined {
  return lastPage.length < pageSize ? undefined : lastPage[lastPage.length - 1]
}

/** flattenPages joins the pages of an infinite query, dropping rows seen twice (by key). */
export function flattenPages<Row>(pages: readonly (readonly Row[])[] | undefined, key: (row: Row) => string): Row[] {
  const seen = new Set<string>()
  const out: Row[] = []
  for (const page of pages ?? []) {
    for (const row of page) {
      const k = key(row)
      if (seen.has(k)) continue
      seen.add(k)
      out.push(row)
    }
  }
  return out
}
