import { useEffect, useRef, useState } from 'react'
import { Link, Navigate, useLocation, useNavigate } from 'react-router'
import { Check, HandCoins, Headphones, Mic2 } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { oauthErrorFromURL, pendingRole, type ChosenRole } from '@/features/auth/api/providers'
import { useAuthStore, useRoleSettled } from '@/lib/auth'
import { supabase } from '@/lib/supabase'

const roles = [
  {
    role: 'fan',
    title: 'Fan',
    icon: Headphones,
    benefits: ['Stream the best of Nigerian music', 'Like tracks and build your favourites', 'Your listens pay the artists you love', 'Climb the Top Fans chart'],
  },
  {
    role: 'artist',
    title: 'Artist',
    icon: Mic2,
    benefits: ['Upload tracks and grow your audience', 'Earn ₦50 per sponsored fan stream', 'Accept sponsorships from brands', 'Cash out from ₦1,000'],
  },
  {
    role: 'sponsor',
    title: 'Sponsor',
    icon: HandCoins,
    benefits: ['Back artists and tracks you believe in', 'Pay only for complete listens', 'Pitch artists directly with invitations', 'Track spend and reach in real time'],
  },
] as const

/**
 * RegisterPage is the role chooser. A Google or Apple sign-in comes back
 * here: a known user goes on to their dashboard, a new account (created
 * without a role) picks its role here, or gets the one picked on
 * /register/:role before leaving, and a refused sign-in shows why.
 */
export default function RegisterPage() {
  const navigate = useNavigate()
  const location = useLocation()
  const user = useAuthStore((s) => s.user)
  const role = useAuthStore((s) => s.role)
  const loading = useAuthStore((s) => s.loading)
  const settled = useRoleSettled()
  const [choosing, setChoosing] = useState(false)
  const autoChosen = useRef(false)
  const finishing = !!user && !loading && settled && !role

  useEffect(() => {
    const message = oauthErrorFromURL(location.search, window.location.hash)
    if (!message) return
    toast.error('Sign-in failed', { description: message })
    // Drop the error from the address bar so a reload does not repeat it.
    navigate({ pathname: location.pathname }, { replace: true })
  }, [location.search, location.pathname, navigate])

  const choose = async (r: ChosenRole) => {
    if (!user) return
    setChoosing(true)
    const { error } = await supabase().rpc('choose_signup_role', { p_role: r })
    setChoosing(false)
    if (error) {
      toast.error('Could not set up your account', { description: error.message })
      return
    }
    useAuthStore.getState().setRole(r, user.id)
    toast.success('Account created', { description: 'Welcome to Backline!' })
    navigate(`/dashboard/${r}`, { replace: true })
  }

  const picked = pendingRole(location.search)
  useEffect(() => {
    if (finishing && picked && !autoChosen.current) {
      autoChosen.current = true
      void choose(picked)
    }
  })

  if (user && role) return <Navigate to={`/dashboard/${role}`} replace />
  return (
    <div className="mx-auto max-w-5xl py-6">
      <h1 className="text-center text-3xl font-bold">{finishing ? 'One last step' : 'Join Backline'}</h1>
      <p className="mt-2 text-center text-muted-foreground">
        {finishing ? 'Choose how you want to use Backline to finish setting up your account.' : 'Choose how you want to use Backline.'}
      </p>
      <div className="mt-8 grid grid-cols-1 gap-4 md:grid-cols-3">
        {roles.map(({ role, title, icon: Icon, benefits }) => (
          <div key={role} className="flex flex-col rounded-2xl border border-border bg-card p-6" data-testid={`role-${role}`}>
            <Icon className="size-8 text-primary" />
            <h2 className="mt-3 text-xl font-semibold">{title}</h2>
            <ul className="my-4 grid grid-cols-1 gap-2 text-sm text-muted-foreground">
              {benefits.map((b) => (
                <li key={b} className="flex gap-2">
                  <Check className="size-4 shrink-0 text-green-400" /> {b}
                </li>
              ))}
            </ul>
            {finishing ? (
              <Button className="mt-auto" disabled={choosing} onClick={() => void choose(role)}>
                Continue as {title}
              </Button>
            ) : (
              <Button asChild className="mt-auto">
                <Link to={`/register/${role}`}>Sign up as {title}</Link>
              </Button>
            )}
          </div>
        ))}
      </div>
      {!finishing && (
        <p className="mt-8 text-center text-sm text-muted-foreground">
          Already have an account?{' '}
          <Link to="/login" className="text-primary hover:underline">
            Login
          </Link>
        </p>
      )}
    </div>
  )
}
