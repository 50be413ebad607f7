import { describe, expect, it } from 'vitest'
import { normalise } from './env'

describe('runtime config', () => {
  it("accepts the app server's shape and the legacy shape", () => {
    expect(normalise({ supabaseUrl: 'http://a', supabaseAnonKey: 'k' })).toEqual({ SUPABASE_URL: 'http://a', SUPABASE_ANON_KEY: 'k' })
    expect(normalise({ SUPABASE_URL: 'http://b', SUPABASE_ANON_KEY: 'j' })).toEqual({ SUPABASE_URL: 'http://b', SUPABASE_ANON_KEY: 'j' })
    expect(normalise(null)).toBeUndefined()
  })
})
