import { useState } from 'react'
import { useForm } from 'react-hook-form'
import { zodResolver } from '@hookform/resolvers/zod'
import { Link } from 'react-router'
import { MailCheck } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { FormField } from '@/components/form-field'
import { supabase } from '@/lib/supabase'
import { registerInputSchema, signupMetadata, type RegisterInput, type SignupRole } from '../api/schemas'
import { PasswordInput } from './password-input'

const GENRES = ['Afrobeats', 'Afro-pop', 'Amapiano', 'Highlife', 'Fuji', 'Juju', 'Gospel', 'Hip-hop', 'R&B', 'Alté', 'Street-hop', 'Other']

/**
 * RegisterForm creates an account with one supabase.auth.signUp call; the
 * database builds the profile, role, role profile and wallet from options.data.
 */
export function RegisterForm({ role }: { role: SignupRole }) {
  const [sentTo, setSentTo] = useState<string | null>(null)
  const { register, handleSubmit, formState } = useForm<RegisterInput>({
    resolver: zodResolver(registerInputSchema),
    defaultValues: { display_name: '', username: '', email: '', password: '', confirm_password: '', phone: '', location: '', genre: '', company_name: '', website: '' },
  })
  const { errors, isSubmitting } = formState

  const onSubmit = async (raw: RegisterInput) => {
    const v = registerInputSchema.parse(raw)
    const { data, error } = await supabase().auth.signUp({
      email: v.email,
      password: v.password,
      options: { data: signupMetadata(role, v), emailRedirectTo: `${window.location.origin}/dashboard?verification_success=true` },
    })
    if (error) {
      toast.error('Registration failed', { description: error.message })
      return
    }
    if (data.session) {
      toast.success('Account created', { description: 'Welcome to Backline!' })
      window.location.assign(`/dashboard/${role}`)
      return
    }
    setSentTo(v.email)
  }

  if (sentTo) {
    return (
      <div className="grid grid-cols-1 justify-items-center gap-3 text-center" data-testid="check-email">
        <MailCheck className="size-10 text-primary" />
        <h2 className="text-xl font-semibold">Check your email</h2>
        <p className="text-sm text-muted-foreground">We sent a confirmation link to {sentTo}. Open it to activate your account, then sign in.</p>
        <Button asChild variant="outline">
          <Link to="/login">Go to Login</Link>
        </Button>
      </div>
    )
  }

  return (
    <form onSubmit={handleSubmit(onSubmit)} className="grid grid-cols-1 gap-4" noValidate>
      <FormField id="display_name" label={role === 'artist' ? 'Artist / stage name' : role === 'sponsor' ? 'Contact name' : 'Display name'} error={errors.display_name?.message}>
        <Input id="display_name" autoComplete="name" {...register('display_name')} aria-invalid={!!errors.display_name} />
      </FormField>
      <FormField id="username" label="Username" error={errors.username?.message} hint="Your profile address: /profiles/username">
        <Input id="username" autoComplete="username" {...register('username')} aria-invalid={!!errors.username} />
      </FormField>
      <FormField id="email" label="Email" error={errors.email?.message}>
        <Input id="email" type="email" autoComplete="email" {...register('email')} aria-invalid={!!errors.email} />
      </FormField>
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <FormField id="password" label="Password" error={errors.password?.message}>
          <PasswordInput id="password" autoComplete="new-password" {...register('password')} aria-invalid={!!errors.password} />
        </FormField>
        <FormField id="confirm_password" label="Confirm password" error={errors.confirm_password?.message}>
          <PasswordInput id="confirm_password" autoComplete="new-password" {...register('confirm_password')} aria-invalid={!!errors.confirm_password} />
        </FormField>
      </div>
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <FormField id="phone" label="Phone (optional)" error={errors.phone?.message}>
          <Input id="phone" type="tel" autoComplete="tel" placeholder="08012345678" {...register('phone')} />
        </FormField>
        <FormField id="location" label="City / State (optional)" error={errors.location?.message}>
          <Input id="location" placeholder="Lagos" {...register('location')} />
        </FormField>
      </div>
      {role === 'artist' && (
        <FormField id="genre" label="Main genre" error={errors.genre?.message}>
          <select id="genre" className="h-10 rounded-md border border-border bg-background px-3 text-sm" {...register('genre')}>
            <option value="">Choose a genre</option>
            {GENRES.map((g) => (
              <option key={g}>{g}</option>
            ))}
          </select>
        </FormField>
      )}
      {role === 'sponsor' && (
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          <FormField id="company_name" label="Company or brand" error={errors.company_name?.message}>
            <Input id="company_name" autoComplete="organization" {...register('company_name')} />
          </FormField>
          <FormField id="website" label="Website (optional)" error={errors.website?.message}>
            <Input id="website" type="url" placeholder="https://" {...register('website')} />
          </FormField>
        </div>
      )}
      <label className="flex items-start gap-2 text-sm">
        <input type="checkbox" className="mt-1" {...register('accept_terms')} />
        <span>
          I agree to the{' '}
          <Link to="/terms" className="text-primary hover:underline">
            Terms of Service
          </Link>{' '}
          and{' '}
          <Link to="/privacy" className="text-primary hover:underline">
            Privacy Policy
          </Link>
        </span>
      </label>
      {errors.accept_terms && <p className="text-xs text-red-400">{errors.accept_terms.message}</p>}
      <Button type="submit" disabled={isSubmitting}>
        {isSubmitting ? 'Creating account...' : 'Create account'}
      </Button>
      <p className="text-center text-sm text-muted-foreground">
        Already have an account?{' '}
        <Link to="/login" className="text-primary hover:underline">
          Login
        </Link>
      </p>
    </form>
  )
}
