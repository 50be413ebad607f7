import { z } from 'zod'

// Form schemas of spec section 5, next to the calls that use them.

/** loginInputSchema: valid email, password of at least 6 characters. */
export const loginInputSchema = z.object({
  email: z.string().trim().email('Please enter a valid email address'),
  password: z.string().min(6, 'Password must be at least 6 characters'),
})
/** LoginInput is the login form's values. */
export type LoginInput = z.infer<typeof loginInputSchema>

/** SignupRole is a role that can be chosen at sign-up; admins are never self-created. */
export type SignupRole = 'fan' | 'artist' | 'sponsor'

const phone = z
  .string()
  .trim()
  .regex(/^(\+?234|0)[789][01]\d{8}$/, 'Enter a Nigerian phone number, e.g. 08012345678')
  .or(z.literal(''))

/** registerInputSchema covers the common fields plus each role's basics. */
export const registerInputSchema = z
  .object({
    display_name: z.string().trim().min(2, 'Display name must be at least 2 characters').max(60, 'Display name is too long'),
    username: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9_]{3,30}$/, 'Username must be 3–30 letters, numbers or underscores'),
    email: z.string().trim().email('Please enter a valid email address'),
    password: z.string().min(8, 'Password must be at least 8 characters'),
    confirm_password: z.string(),
    phone,
    location: z.string().trim().max(80).optional(),
    genre: z.string().trim().max(40).optional(),
    company_name: z.string().trim().max(100).optional(),
    website: z.string().trim().url('Enter a full URL, e.g. https://example.com').or(z.literal('')).optional(),
    accept_terms: z.literal(true, { error: 'You must accept the Terms of Service and Privacy Policy' }),
  })
  .refine((v) => v.password === v.confirm_password, { path: ['confirm_password'], message: 'Passwords do not match' })

/** RegisterInput is the registration form's values. */
export type RegisterInput = z.input<typeof registerInputSchema>

/** signupMetadata builds options.data for supabase.auth.signUp: the role and profile basics. */
export function signupMetadata(role: SignupRole, v: z.output<typeof registerInputSchema>): Record<string, string> {
  const data: Record<string, string> = { role, display_name: v.display_name, username: v.username }
  if (v.phone) data.phone = v.phone
  if (v.location) data.location = v.location
  if (role === 'artist' && v.genre) data.genre = v.genre
  if (role === 'sponsor') {
    if (v.company_name) data.company_name = v.company_name
    if (v.website) data.website = v.website
  }
  return data
}

/** emailSchema validates the forgot-password form. */
export const emailSchema = z.object({ email: z.string().trim().email('Please enter a valid email address') })

/** resetSchema validates the new password form. */
export const resetSchema = z
  .object({ password: z.string().min(8, 'Password must be at least 8 characters'), confirm_password: z.string() })
  .refine((v) => v.password === v.confirm_password, { path: ['confirm_password'], message: 'Passwords do not match' })
