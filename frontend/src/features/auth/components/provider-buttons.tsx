import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { supabase } from '@/lib/supabase'
import { providerLabel, providerReturnURL, useAuthProviders, type ChosenRole, type SignInProvider } from '../api/providers'

/** ProviderIcon is the provider's mark. */
export function ProviderIcon({ provider }: { provider: string }) {
  if (provider === 'google') {
    return (
      <svg viewBox="0 0 24 24" aria-hidden="true">
        <path fill="#4285F4" d="M23.5 12.3c0-.8-.1-1.6-.2-2.3H12v4.5h6.5a5.6 5.6 0 0 1-2.4 3.6v3h3.9c2.2-2.1 3.5-5.1 3.5-8.8Z" />
        <path fill="#34A853" d="M12 24c3.2 0 6-1.1 8-2.9l-3.9-3a7.2 7.2 0 0 1-10.8-3.8h-4v3.1A12 12 0 0 0 12 24Z" />
        <path fill="#FBBC05" d="M5.3 14.3a7.2 7.2 0 0 1 0-4.6V6.6h-4a12 12 0 0 0 0 10.8l4-3.1Z" />
        <path fill="#EA4335" d="M12 4.8c1.8 0 3.3.6 4.6 1.8l3.4-3.4A12 12 0 0 0 1.3 6.6l4 3.1A7.2 7.2 0 0 1 12 4.8Z" />
      </svg>
    )
  }
  if (provider === 'apple') {
    return (
      <svg viewBox="0 0 24 24" aria-hidden="true" fill="currentColor">
        <path d="M16.4 12.8c0-2.6 2.1-3.8 2.2-3.9a4.8 4.8 0 0 0-3.8-2c-1.6-.2-3.1.9-3.9.9-.8 0-2-.9-3.4-.9a5 5 0 0 0-4.2 2.6c-1.8 3.1-.5 7.7 1.3 10.2.8 1.2 1.8 2.6 3.1 2.5 1.2 0 1.7-.8 3.2-.8s1.9.8 3.2.8 2.2-1.2 3-2.4c.9-1.4 1.3-2.7 1.3-2.8 0 0-2.6-1-2.6-4.2ZM13.9 5.2c.7-.8 1.1-1.9 1-3a4.4 4.4 0 0 0-2.9 1.5 4.1 4.1 0 0 0-1 2.9c1.1.1 2.2-.6 2.9-1.4Z" />
      </svg>
    )
  }
  return null
}

/**
 * ProviderButtons offers "Continue with Google" / "Continue with Apple" for
 * the providers the server has switched on (nothing when none is). The
 * browser leaves for the provider and comes back to the role chooser;
 * role is the role picked on this page, applied there to a new account.
 */
export function ProviderButtons({ role }: { role?: ChosenRole }) {
  const { data: providers = [] } = useAuthProviders()
  if (providers.length === 0) return null
  const start = async (provider: SignInProvider) => {
    const { error } = await supabase().auth.signInWithOAuth({ provider, options: { redirectTo: providerReturnURL(window.location.origin, role) } })
    if (error) toast.error('Could not start sign-in', { description: error.message })
  }
  return (
    <div className="grid gap-3" data-testid="provider-buttons">
      {providers.map((p) => (
        <Button key={p} type="button" variant="outline" className="w-full" onClick={() => void start(p)}>
          <ProviderIcon provider={p} />
          Continue with {providerLabel(p)}
        </Button>
      ))}
      <div className="flex items-center gap-3 text-xs text-muted-foreground">
        <span className="h-px flex-1 bg-border" />
        or
        <span className="h-px flex-1 bg-border" />
      </div>
    </div>
  )
}
