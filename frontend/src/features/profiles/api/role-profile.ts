import { supabase } from '@/lib/supabase'
import { roleProfileQueryKey, type RoleProfileExtras } from '@/lib/shell-keys'

// The profile-completeness fields kept in the role's own profile table. The
// app shell's bootstrap seeds this cache on a fresh load (app/bootstrap.ts);
// fetchRoleProfile reads it on its own after that.

export { roleProfileQueryKey, type RoleProfileExtras }

/** ProfileRole is a role that has its own profile table. */
export type ProfileRole = 'artist' | 'sponsor' | 'fan'


/** fetchRoleProfile reads phone (and an artist's track count) from the role's profile table; null on error. */
export async function fetchRoleProfile(role: ProfileRole, id: string): Promise<RoleProfileExtras | null> {
  const sb = supabase()
  const { data, error } =
    role === 'artist'
      ? await sb.from('artist_profiles').select('phone, track_count').eq('id', id).maybeSingle()
      : await sb.from(role === 'sponsor' ? 'sponsor_profiles' : 'fan_profiles').select('phone').eq('id', id).maybeSingle()
  return error ? null : data
}
