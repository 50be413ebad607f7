import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import { env } from '@/config/env'

// The one supabase-js client of the app. It is created lazily because the
// runtime config is loaded asynchronously before the first render.
let client: SupabaseClient | null = null

/** supabase returns the shared client. */
export function supabase(): SupabaseClient {
  if (!client) {
    const { SUPABASE_URL, SUPABASE_ANON_KEY } = env()
    client = createClient(SUPABASE_URL, SUPABASE_ANON_KEY, {
      auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: true },
    })
  }
  return client
}
