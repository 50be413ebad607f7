import { useState } from 'react'
import { Database } from 'lucide-react'
import { signIn, type Session } from '@/lib/api'
import { Button } from '@/components/ui/button'
import { Input, Label } from '@/components/ui/input'
import { Card, ErrorText } from '@/components/ui/misc'

/** SignIn is the operator's sign-in form (basalt serve). */
export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  return (
    <div className="flex min-h-screen items-center justify-center p-4">
      <Card className="w-full max-w-sm">
        <form
          className="flex flex-col gap-3"
          onSubmit={async (e) => {
            e.preventDefault()
            setBusy(true)
            setError(null)
            try {
              onSignedIn(await signIn(email, password))
            } catch (err) {
              setError(err)
            } finally {
              setBusy(false)
            }
          }}
        >
          <div className="flex items-center gap-2 text-base font-semibold">
            <Database className="size-5 text-primary" /> Sign in to Basalt Studio
          </div>
          <div className="flex flex-col gap-1">
            <Label htmlFor="email">Email</Label>
            <Input id="email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
          </div>
          <div className="flex flex-col gap-1">
            <Label htmlFor="password">Password</Label>
            <Input id="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
          </div>
          <ErrorText error={error} />
          <Button type="submit" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </Button>
          <p className="text-xs text-muted-foreground">Operators are added on the server with `basalt studio user add EMAIL`.</p>
        </form>
      </Card>
    </div>
  )
}
