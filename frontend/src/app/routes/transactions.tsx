import { useLiveTable } from '@/hooks/use-live-table'
import { useAuthStore } from '@/lib/auth'
import { Ledger } from '@/features/wallet/components/ledger'

/** TransactionsPage lists the wallet's movements: paginated, filterable by type and date, with CSV export; a movement (it changes the wallet) shows at once. */
export default function TransactionsPage() {
  const userId = useAuthStore((s) => s.user?.id)
  useLiveTable('wallets', userId ? `user_id=eq.${userId}` : undefined, [['transactions', userId]])
  return (
    <div>
      <h1 className="text-3xl font-bold">Transactions</h1>
      <div className="mt-6">{userId && <Ledger userId={userId} filters pageSize={20} />}</div>
    </div>
  )
}
