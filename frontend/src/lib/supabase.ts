import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import { env } from '@/config/env'
import type { Database } from '@/lib/database.types'

/** Client is the app's typed supabase-js client (types generated from the migrations). */
export type Client = SupabaseClient<Database>

// The one supabase-js client of the app. It is created lazily because the
// runtime config is loaded asynchronously before the first render.
let client: Client | null = null

/** supabase returns the shared client. */
export function supabase(): Client {
  if (!client) {
    const { SUPABASE_URL, SUPABASE_ANON_KEY } = env()
    client = createClient<Database>(SUPABASE_URL, SUPABASE_ANON_KEY, {
      auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: true },
    })
  }
  return client
}
