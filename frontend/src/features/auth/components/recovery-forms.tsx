import { useState } from 'react'
import { useForm } from 'react-hook-form'
import { zodResolver } from '@hookform/resolvers/zod'
import { Link, useNavigate } from 'react-router'
import { toast } from 'sonner'
import type { z } from 'zod'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { FormField } from '@/components/form-field'
import { supabase } from '@/lib/supabase'
import { emailSchema, resetSchema } from '../api/schemas'
import { PasswordInput } from './password-input'

/** ForgotPasswordForm sends the recovery email. */
export function ForgotPasswordForm() {
  const [sent, setSent] = useState(false)
  const { register, handleSubmit, formState } = useForm<z.infer<typeof emailSchema>>({ resolver: zodResolver(emailSchema) })
  const onSubmit = async ({ email }: z.infer<typeof emailSchema>) => {
    const { error } = await supabase().auth.resetPasswordForEmail(email, { redirectTo: `${window.location.origin}/reset-password` })
    if (error) {
      toast.error('Could not send reset email', { description: error.message })
      return
    }
    setSent(true)
  }
  if (sent) {
    return (
      <p className="text-center text-sm text-muted-foreground" data-testid="reset-sent">
        If an account exists for that address, a password reset link is on its way. Check your inbox and spam folder.
      </p>
    )
  }
  return (
    <form onSubmit={handleSubmit(onSubmit)} className="grid grid-cols-1 gap-4" noValidate>
      <FormField id="email" label="Email" error={formState.errors.email?.message}>
        <Input id="email" type="email" autoComplete="email" {...register('email')} />
      </FormField>
      <Button type="submit" disabled={formState.isSubmitting}>
        Send reset link
      </Button>
      <Link to="/login" className="text-center text-sm text-primary hover:underline">
        Back to login
      </Link>
    </form>
  )
}

/** ResetPasswordForm sets a new password for the recovery session opened by the email link. */
export function ResetPasswordForm({ hasSession }: { hasSession: boolean }) {
  const navigate = useNavigate()
  const { register, handleSubmit, formState } = useForm<z.infer<typeof resetSchema>>({ resolver: zodResolver(resetSchema) })
  if (!hasSession) {
    return (
      <div className="grid grid-cols-1 gap-3 text-center text-sm text-muted-foreground">
        <p>This reset link is invalid or has expired. Request a new one.</p>
        <Button asChild variant="outline">
          <Link to="/forgot-password">Request a new link</Link>
        </Button>
      </div>
    )
  }
  const onSubmit = async ({ password }: z.infer<typeof resetSchema>) => {
    const { error } = await supabase().auth.updateUser({ password })
    if (error) {
      toast.error('Could not update password', { description: error.message })
      return
    }
    toast.success('Password updated', { description: 'You can now sign in with your new password.' })
    navigate('/dashboard', { replace: true })
  }
  return (
    <form onSubmit={handleSubmit(onSubmit)} className="grid grid-cols-1 gap-4" noValidate>
      <FormField id="password" label="New password" error={formState.errors.password?.message}>
        <PasswordInput id="password" autoComplete="new-password" {...register('password')} />
      </FormField>
      <FormField id="confirm_password" label="Confirm new password" error={formState.errors.confirm_password?.message}>
        <PasswordInput id="confirm_password" autoComplete="new-password" {...register('confirm_password')} />
      </FormField>
      <Button type="submit" disabled={formState.isSubmitting}>
        Update password
      </Button>
    </form>
  )
}
