import { describe, expect, it } from 'vitest'
import { loginInputSchema, registerInputSchema, signupMetadata } from './schemas'

const messages = (r: { success: boolean; error?: { issues: { message: string }[] } }) => (r.success ? [] : r.error!.issues.map((i) => i.message))

describe('login validation', () => {
  it('reports the spec messages', () => {
    expect(messages(loginInputSchema.safeParse({ email: 'nope', password: '123' }))).toEqual([
      'Please enter a valid email address',
      'Password must be at least 6 characters',
    ])
    expect(loginInputSchema.safeParse({ email: 'ada@example.ng', password: '123456' }).success).toBe(true)
  })
})

describe('registration', () => {
  const base = {
    display_name: 'Burna Test',
    username: 'Burna_Test',
    email: 'b@example.ng',
    password: 'longpassword',
    confirm_password: 'longpassword',
    phone: '08031234567',
    location: 'Lagos',
    genre: 'Afrobeats',
    company_name: 'Acme Ltd',
    website: '',
    accept_terms: true,
  }
  it('lower-cases the username and builds role metadata', () => {
    const v = registerInputSchema.parse(base)
    expect(v.username).toBe('burna_test')
    expect(signupMetadata('artist', v)).toEqual({ role: 'artist', display_name: 'Burna Test', username: 'burna_test', phone: '08031234567', location: 'Lagos', genre: 'Afrobeats' })
    expect(signupMetadata('sponsor', v)).toEqual({ role: 'sponsor', display_name: 'Burna Test', username: 'burna_test', phone: '08031234567', location: 'Lagos', company_name: 'Acme Ltd' })
    expect(signupMetadata('fan', v)).toEqual({ role: 'fan', display_name: 'Burna Test', username: 'burna_test', phone: '08031234567', location: 'Lagos' })
  })
  it('rejects mismatched passwords, bad usernames, bad phones and unaccepted terms', () => {
    expect(messages(registerInputSchema.safeParse({ ...base, confirm_password: 'other' }))).toEqual(['Passwords do not match'])
    expect(messages(registerInputSchema.safeParse({ ...base, username: 'a b' }))).toEqual(['Username must be 3–30 letters, numbers or underscores'])
    expect(messages(registerInputSchema.safeParse({ ...base, phone: '12345' }))).toEqual(['Enter a Nigerian phone number, e.g. 08012345678'])
    expect(registerInputSchema.safeParse({ ...base, phone: '+2349012345678' }).success).toBe(true)
    expect(registerInputSchema.safeParse({ ...base, accept_terms: false }).success).toBe(false)
  })
})
