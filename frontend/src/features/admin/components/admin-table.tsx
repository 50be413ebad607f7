import { Button } from '@/components/ui/button'
import { DataTable, type DataColumn } from '@/components/ui/data-table'

/** Column is one column of an admin list (a DataTable column). */
export type Column<Row> = DataColumn<Row>

/** AdminTable is the admin lists' table: it fits a phone as cards or a narrower table (components/ui/data-table.tsx). */
export const AdminTable = DataTable

/** LoadMore fetches the next keyset page of an infinite query. */
export function LoadMore({ hasNextPage, isFetchingNextPage, fetchNextPage }: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown }) {
  if (!hasNextPage) return null
  return (
    <div className="mt-3 flex justify-center">
      <Button variant="outline" size="sm" disabled={isFetchingNextPage} onClick={() => void fetchNextPage()}>
        {isFetchingNextPage ? 'Loading…' : 'Load more'}
      </Button>
    </div>
  )
}
