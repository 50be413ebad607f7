import { z } from 'zod'
import { supabase } from '@/lib/supabase'

/** waitlistSchema is the early-access form of spec section 5. */
export const waitlistSchema = z.object({
  email: z.string().trim().email('Please enter a valid email address.'),
  role: z.enum(['fan', 'artist', 'sponsor'], { error: 'Please select your role.' }),
})

/** WaitlistInput is the form's values. */
export type WaitlistInput = z.infer<typeof waitlistSchema>

/** subscribeErrorMessage maps an insert error to the message the form shows. */
export function subscribeErrorMessage(error: { code?: string; message?: string } | null): string {
  if (error?.code === '23505') return 'This email is already subscribed!'
  return error?.message || 'Failed to subscribe. Please try again.'
}

/** subscribe adds an early-access subscriber; it returns an error message or null. */
export async function subscribe(v: WaitlistInput): Promise<string | null> {
  try {
    const { error } = await supabase().from('early_access_subscribers').insert({ email: v.email.toLowerCase(), role: v.role })
    return error ? subscribeErrorMessage(error) : null
  } catch {
    return subscribeErrorMessage(null)
  }
}
