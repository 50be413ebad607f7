import { Link } from 'react-router'
import { BadgeCheck } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { dashboardPath } from '@/config/nav'
import { useAuthStore } from '@/lib/auth'

/** VerificationSuccessPage is where the verification checkout returns (the payment is verified by the app shell). */
export default function VerificationSuccessPage() {
  const role = useAuthStore((s) => s.role)
  return (
    <div className="grid grid-cols-1 justify-items-center gap-4 py-20 text-center">
      <BadgeCheck className="size-16 text-sky-400" />
      <h1 className="text-2xl font-bold">Thank you!</h1>
      <p className="max-w-md text-muted-foreground">We're confirming your payment. Your verified badge appears on your profile as soon as it's confirmed and lasts one year.</p>
      <Button asChild>
        <Link to={dashboardPath(role)}>Go to Dashboard</Link>
      </Button>
    </div>
  )
}
