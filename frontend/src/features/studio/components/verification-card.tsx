import { Link } from 'react-router'
import { BadgeCheck } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { formatNaira } from '@/lib/format'

const day = (iso: string) => new Date(iso).toLocaleDateString('en-NG', { day: 'numeric', month: 'short', year: 'numeric' })

/** VerificationCard shows the badge's state; buying is offered only when the database would allow it. */
export function VerificationCard({ v }: { v: { active: boolean; expires_at: string | null; renew_from: string | null; can_buy: boolean; fee: number } }) {
  return (
    <div className="rounded-xl border border-border bg-card p-4" data-testid="verification-status">
      <p className="flex items-center gap-2 font-semibold">
        <BadgeCheck className={v.active ? 'text-sky-400' : 'text-muted-foreground'} /> {v.active ? 'Verified' : 'Not verified'}
      </p>
      <p className="mt-1 text-sm text-muted-foreground">
        {v.active && v.expires_at
          ? v.can_buy
            ? `Expires ${day(v.expires_at)}. You can renew it now.`
            : `Valid until ${day(v.expires_at)}. Renewal opens ${day(v.renew_from!)}.`
          : `A verified badge costs ${formatNaira(v.fee)} and lasts one year.`}
      </p>
      {v.can_buy && (
        <Button asChild size="sm" className="mt-3">
          <Link to="/verification">{v.active ? 'Renew verification' : 'Get verified'}</Link>
        </Button>
      )}
    </div>
  )
}
