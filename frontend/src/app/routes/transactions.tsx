import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { useAuthStore } from '@/lib/auth'
import { formatNaira } from '@/lib/format'
import { supabase } from '@/lib/supabase'

const PAGE = 20

interface Txn {
  id: string
  reference: string | null
  kind: string | null
  amount: number | string
  created_at: string
  from_user_id?: string | null
  to_user_id?: string | null
}

/** TransactionsPage lists the user's wallet movements with pagination. */
export default function TransactionsPage() {
  const userId = useAuthStore((s) => s.user?.id)
  const [page, setPage] = useState(0)
  const { data, isLoading, isError } = useQuery({
    queryKey: ['transactions', userId, page],
    enabled: !!userId,
    queryFn: async () => {
      const { data, error, count } = await supabase()
        .from('transactions')
        .select('*', { count: 'exact' })
        .order('created_at', { ascending: false })
        .range(page * PAGE, page * PAGE + PAGE - 1)
      if (error) throw error
      return { rows: data as Txn[], count: count ?? 0 }
    },
  })
  const pages = Math.max(1, Math.ceil((data?.count ?? 0) / PAGE))
  return (
    <div>
      <h1 className="text-3xl font-bold">Transactions</h1>
      <div className="mt-6 overflow-x-auto rounded-xl border border-border">
        <table className="w-full text-left text-sm">
          <thead className="bg-card text-muted-foreground">
            <tr>
              <th className="p-3">Date</th>
              <th className="p-3">Type</th>
              <th className="p-3">Reference</th>
              <th className="p-3 text-right">Amount</th>
            </tr>
          </thead>
          <tbody>
            {(data?.rows ?? []).map((t) => (
              <tr key={t.id} className="border-t border-border">
                <td className="p-3">{new Date(t.created_at).toLocaleString('en-NG')}</td>
                <td className="p-3 capitalize">{(t.kind ?? '').replace(/_/g, ' ')}</td>
                <td className="p-3 font-mono text-xs">{t.reference}</td>
                <td className={`p-3 text-right ${t.from_user_id === userId ? 'text-red-400' : 'text-green-400'}`}>
                  {t.from_user_id === userId ? '-' : '+'}
                  {formatNaira(Number(t.amount))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {isLoading && <Skeleton className="m-3 h-24" />}
        {!isLoading && (isError || (data?.rows ?? []).length === 0) && <p className="p-8 text-center text-muted-foreground">No transactions yet</p>}
      </div>
      <div className="mt-4 flex items-center justify-center gap-2">
        <Button variant="outline" size="sm" disabled={page === 0} onClick={() => setPage(page - 1)}>
          Previous
        </Button>
        <span className="text-sm text-muted-foreground">
          Page {page + 1} of {pages}
        </span>
        <Button variant="outline" size="sm" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>
          Next
        </Button>
      </div>
    </div>
  )
}
