import { useEffect, useState } from 'react'
import { useForm } from 'react-hook-form'
import { zodResolver } from '@hookform/resolvers/zod'
import { Link } from 'react-router'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { FormField } from '@/components/form-field'
import { subscribe, waitlistSchema, type WaitlistInput } from '../api/subscribe'
import { remaining } from '../lib/countdown'

function Confetti() {
  const colours = ['#8b5cf6', '#f59e0b', '#ec4899', '#22c55e', '#38bdf8']
  return (
    <div className="pointer-events-none fixed inset-0 z-50 overflow-hidden" aria-hidden data-testid="confetti">
      {Array.from({ length: 80 }, (_, i) => (
        <span
          key={i}
          className="absolute top-0 block h-3 w-2 rounded-sm"
          style={{
            left: `${(i * 37) % 100}%`,
            background: colours[i % colours.length],
            animation: `confetti-fall ${2 + (i % 5) * 0.4}s ease-in ${(i % 10) * 0.1}s forwards`,
          }}
        />
      ))}
    </div>
  )
}

/** Countdown ticks every second until the target date, then shows the launch state. */
export function Countdown({ target }: { target: string }) {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const t = window.setInterval(() => setNow(Date.now()), 1000)
    return () => window.clearInterval(t)
  }, [])
  const r = remaining(target, now)
  return (
    <div className="grid grid-cols-1 justify-items-center gap-4 text-center" data-testid="countdown">
      <img src="/pwa-192x192.png" alt="Backline" width={72} height={72} className="rounded-2xl" />
      <p className="text-sm uppercase tracking-widest text-muted-foreground">The future of music streaming is coming</p>
      {r.done ? (
        <>
          <h1 className="text-4xl font-bold">Launch Time!</h1>
          <p className="text-muted-foreground">We're excited to announce that our platform is now live!</p>
        </>
      ) : (
        <>
          <h1 className="text-3xl font-bold md:text-5xl">Something Amazing is Coming</h1>
          <div className="grid grid-cols-4 gap-3">
            {(
              [
                ['Days', r.days],
                ['Hours', r.hours],
                ['Minutes', r.minutes],
                ['Seconds', r.seconds],
              ] as const
            ).map(([label, v]) => (
              <div key={label} className="min-w-16 rounded-xl border border-border bg-card p-3">
                <p className="text-3xl font-bold tabular-nums">{String(v).padStart(2, '0')}</p>
                <p className="text-xs text-muted-foreground">{label}</p>
              </div>
            ))}
          </div>
          <p className="text-sm text-muted-foreground">Until launch</p>
        </>
      )}
    </div>
  )
}

/** ComingSoon is the waitlist landing shown to visitors while the product is pre-launch. */
export function ComingSoon({ countdownTarget }: { countdownTarget: string }) {
  const [done, setDone] = useState(false)
  const [serverError, setServerError] = useState<string | null>(null)
  const { register, handleSubmit, formState } = useForm<WaitlistInput>({ resolver: zodResolver(waitlistSchema), defaultValues: { email: '' } })
  const onSubmit = async (v: WaitlistInput) => {
    setServerError(null)
    const err = await subscribe(v)
    if (err) setServerError(err)
    else setDone(true)
  }
  return (
    <div className="mx-auto grid grid-cols-1 min-h-screen max-w-xl content-center gap-10 px-4 py-12" data-testid="coming-soon">
      {countdownTarget ? (
        <Countdown target={countdownTarget} />
      ) : (
        <div className="grid grid-cols-1 justify-items-center gap-3 text-center">
          <img src="/pwa-192x192.png" alt="Backline" width={72} height={72} className="rounded-2xl" />
          <h1 className="text-3xl font-bold md:text-5xl">Something Amazing is Coming</h1>
          <p className="text-muted-foreground">The future of music streaming is coming</p>
        </div>
      )}
      <div className="rounded-2xl border border-border bg-card p-6">
        {done ? (
          <div className="grid grid-cols-1 justify-items-center gap-2 text-center">
            <Confetti />
            <h2 className="text-2xl font-bold">You're on the list!</h2>
            <p className="text-sm text-muted-foreground">We'll email you the moment Backline opens its doors.</p>
          </div>
        ) : (
          <form onSubmit={handleSubmit(onSubmit)} className="grid grid-cols-1 gap-4" noValidate>
            <div>
              <h2 className="text-xl font-semibold">Get early access</h2>
              <p className="text-sm text-muted-foreground">Artists earn from every sponsored stream. Sponsors reach fans who listen. Join the waitlist.</p>
            </div>
            <FormField id="wl-email" label="Email" error={formState.errors.email?.message}>
              <Input id="wl-email" type="email" autoComplete="email" {...register('email')} />
            </FormField>
            <fieldset className="grid grid-cols-1 gap-2">
              <legend className="mb-1 text-sm font-medium">I am a</legend>
              <div className="grid grid-cols-3 gap-2">
                {(['fan', 'artist', 'sponsor'] as const).map((r) => (
                  <label key={r} className="flex cursor-pointer items-center justify-center gap-2 rounded-md border border-border p-2 text-sm capitalize has-[:checked]:border-primary has-[:checked]:bg-primary/15">
                    <input type="radio" value={r} className="sr-only" {...register('role')} />
                    {r}
                  </label>
                ))}
              </div>
              {formState.errors.role && <p className="text-xs text-red-400">{formState.errors.role.message}</p>}
            </fieldset>
            {serverError && (
              <p className="text-sm text-red-400" role="alert">
                {serverError}
              </p>
            )}
            <Button type="submit" disabled={formState.isSubmitting}>
              {formState.isSubmitting ? 'Joining...' : 'Join the waitlist'}
            </Button>
            <p className="text-center text-xs text-muted-foreground">
              Already have an account?{' '}
              <Link to="/login" className="text-primary hover:underline">
                Login
              </Link>
            </p>
          </form>
        )}
      </div>
    </div>
  )
}
