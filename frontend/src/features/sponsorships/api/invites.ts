import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { refreshMoney } from '@/lib/money-cache'
import { supabase } from '@/lib/supabase'

// Sponsorship invites from either side. The database decides who may
// invite, answer or withdraw, refuses a second answer ('This invitation has
// already been answered') and a sponsored track ('Track is already
// sponsored'); its message is shown as it is.

/** useRespondInvite accepts or declines an invite addressed to the caller. */
export function useRespondInvite() {
  const qc = useQueryClient()
  return useMutation({
    retry: false,
    mutationFn: async ({ id, accept }: { id: string; accept: boolean }) => {
      const { data, error } = await supabase().rpc('respond_to_invite', { p_invite_id: id, p_accept: accept })
      if (error) throw new Error(error.message)
      return data as { status: string; message: string }
    },
    onSuccess: () => refreshMoney(qc),
  })
}

/** useWithdrawInvite deletes a pending invite the caller sent. */
export function useWithdrawInvite() {
  const qc = useQueryClient()
  return useMutation({
    retry: false,
    mutationFn: async (id: string) => {
      const { error, count } = await supabase().from('sponsor_artist_invites').delete({ count: 'exact' }).eq('id', id).eq('status', 'pending')
      if (error) throw new Error(error.message)
      if (!count) throw new Error('This invitation has already been answered')
    },
    onSuccess: () => refreshMoney(qc),
  })
}

/** useSendInvite: a sponsor invites an artist for one of their unsponsored tracks (the database requires the track). */
export function useSendInvite(sponsorId: string | undefined) {
  const qc = useQueryClient()
  return useMutation({
    retry: false,
    mutationFn: async ({ artistId, trackId, pitch }: { artistId: string; trackId: string; pitch: string }) => {
      if (!sponsorId) throw new Error('Sign in as a sponsor to send invitations')
      const { error } = await supabase()
        .from('sponsor_artist_invites')
        .insert({ artist_id: artistId, sponsor_id: sponsorId, track_id: trackId, pitch: pitch.trim() || null })
      if (error) throw new Error(error.code === '23505' ? 'You already have an open invitation for this' : error.message)
    },
    onSuccess: () => refreshMoney(qc),
  })
}

/** BrowseArtist is an artist with their unsponsored tracks. */
export interface BrowseArtist {
  id: string
  name: string
  stream_count: number
  tracks: { id: string; title: string; streams: number; genre: string | null }[]
}

/** useBrowseArtists lists artists and their unsponsored tracks for the sponsor (two reads). */
export function useBrowseArtists(enabled: boolean, search: string) {
  return useQuery({
    queryKey: ['tracks', 'unsponsored', search],
    enabled,
    staleTime: 30_000,
    queryFn: async (): Promise<BrowseArtist[]> => {
      const sb = supabase()
      let q = sb.from('artist_profiles').select('id, name, stream_count').order('stream_count', { ascending: false }).limit(30)
      if (search.trim()) q = q.ilike('name', `%${search.trim().replace(/[%_]/g, '')}%`)
      const { data: artists, error } = await q
      if (error) throw error
      const ids = (artists ?? []).map((a) => a.id as string)
      const { data: tracks, error: tErr } = ids.length
        ? await sb.from('tracks').select('id, title, streams, genre, artist_id').in('artist_id', ids).eq('is_sponsored', false).order('streams', { ascending: false })
        : { data: [], error: null }
      if (tErr) throw tErr
      return (artists ?? []).map((a) => ({
        id: a.id as string,
        name: (a.name as string) || 'Artist',
        stream_count: Number(a.stream_count ?? 0),
        tracks: (tracks ?? []).filter((t) => t.artist_id === a.id).map((t) => ({ id: t.id as string, title: t.title as string, streams: Number(t.streams ?? 0), genre: t.genre as string | null })),
      }))
    },
  })
}
