import { useForm } from 'react-hook-form'
import { zodResolver } from '@hookform/resolvers/zod'
import { Link, useNavigate } from 'react-router'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { FormField } from '@/components/form-field'
import { settledRole } from '@/lib/auth'
import { supabase } from '@/lib/supabase'
import { loginInputSchema, type LoginInput } from '../api/schemas'
import { PasswordInput } from './password-input'

/** LoginForm signs in with email and password and sends the user to their dashboard. */
export function LoginForm() {
  const navigate = useNavigate()
  const { register, handleSubmit, formState } = useForm<LoginInput>({ resolver: zodResolver(loginInputSchema), defaultValues: { email: '', password: '' } })
  const { errors, isSubmitting } = formState

  const onSubmit = async (v: LoginInput) => {
    try {
      const { data, error } = await supabase().auth.signInWithPassword({ email: v.email, password: v.password })
      if (error) {
        toast.error('Login failed', { description: error.message || 'An error occurred during login' })
        return
      }
      toast.success('Login successful', { description: 'Welcome back!' })
      const role = await settledRole(data.user.id)
      navigate(role ? `/dashboard/${role}` : '/dashboard', { replace: true })
    } catch {
      toast.error('Login failed', { description: 'An error occurred during login' })
    }
  }

  return (
    <form onSubmit={handleSubmit(onSubmit)} className="grid grid-cols-1 gap-4" noValidate>
      <FormField id="email" label="Email" error={errors.email?.message}>
        <Input id="email" type="email" autoComplete="email" placeholder="you@example.com" aria-invalid={!!errors.email} {...register('email')} />
      </FormField>
      <FormField id="password" label="Password" error={errors.password?.message}>
        <PasswordInput id="password" autoComplete="current-password" aria-invalid={!!errors.password} {...register('password')} />
      </FormField>
      <div className="text-right text-sm">
        <Link to="/forgot-password" className="text-primary hover:underline">
          Forgot password?
        </Link>
      </div>
      <Button type="submit" disabled={isSubmitting} className="w-full">
        {isSubmitting ? 'Signing in...' : 'Sign In'}
      </Button>
      <p className="text-center text-sm text-muted-foreground">
        Don't have an account?{' '}
        <Link to="/register" className="text-primary hover:underline">
          Sign up
        </Link>
      </p>
    </form>
  )
}
