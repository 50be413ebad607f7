import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { refreshMoney } from '@/lib/money-cache'
import { supabase } from '@/lib/supabase'
import { publicPath } from '../lib/media'

// The artist's own tracks: create after the uploads, edit, delete, measure
// the duration (the track-duration function reads the stored audio), and
// pitch a track to a sponsor. RLS and the track guard decide; these only ask.

/** TrackFields are what the artist fills in. */
export interface TrackFields {
  title: string
  genre: string
  is_explicit: boolean
  release_date: string | null
  description: string
}

/** GENRES offered by the upload form. */
export const GENRES = ['Afrobeats', 'Amapiano', 'Afro-pop', 'Highlife', 'Gospel', 'Hip-hop', 'R&B', 'Fuji', 'Other']

const clean = (f: TrackFields) => ({
  title: f.title.trim(),
  genre: f.genre || null,
  is_explicit: f.is_explicit,
  release_date: f.release_date || null,
  description: f.description.trim() || null,
})

/** uploadCover stores a cover image in covers/<user>/ and returns its public path. */
export async function uploadCover(userId: string, file: File): Promise<string> {
  const ext = file.type.split('/')[1] === 'jpeg' ? 'jpg' : file.type.split('/')[1]
  const name = `${userId}/${crypto.randomUUID()}.${ext}`
  const { error } = await supabase().storage.from('covers').upload(name, file, { contentType: file.type, cacheControl: '31536000' })
  if (error) throw error
  return publicPath('covers', name)
}

/** createTrack inserts the row for uploaded audio, then asks the server to measure it. */
export async function createTrack(userId: string, fields: TrackFields, audioObject: string, coverUrl: string | null) {
  const { data, error } = await supabase()
    .from('tracks')
    .insert({ ...clean(fields), artist_id: userId, audio_url: publicPath('tracks', audioObject), cover_url: coverUrl })
    .select('id')
    .single()
  if (error) throw error
  const id = (data as { id: string }).id
  // The duration stays unknown if the measurement fails; the track still plays.
  const measured = await supabase().functions.invoke('track-duration', { body: { track_id: id } })
  if (measured.error) console.warn('track-duration', measured.error.message)
  return id
}

/** useUpdateTrack saves edited fields (and a new cover). */
export function useUpdateTrack() {
  const qc = useQueryClient()
  return useMutation({
    retry: false,
    mutationFn: async ({ id, fields, coverUrl }: { id: string; fields: TrackFields; coverUrl?: string }) => {
      const { error } = await supabase()
        .from('tracks')
        .update({ ...clean(fields), ...(coverUrl ? { cover_url: coverUrl } : {}) })
        .eq('id', id)
      if (error) throw error
    },
    onSuccess: () => refreshMoney(qc),
  })
}

/** useDeleteTrack deletes a track; its media goes with it (a trigger in sql/app). */
export function useDeleteTrack() {
  const qc = useQueryClient()
  return useMutation({
    retry: false,
    mutationFn: async (id: string) => {
      const { error, count } = await supabase().from('tracks').delete({ count: 'exact' }).eq('id', id)
      if (error) throw error
      if (!count) throw new Error('Track not found')
    },
    onSuccess: () => refreshMoney(qc),
  })
}

/** SponsorOption is a sponsor an artist may pitch to. */
export interface SponsorOption {
  id: string
  name: string | null
  company_name: string | null
}

/** useSponsors lists sponsors for the pitch dialog. */
export const useSponsors = (enabled: boolean) =>
  useQuery({
    queryKey: ['sponsorProfile', 'list'],
    enabled,
    staleTime: 5 * 60_000,
    queryFn: async () => {
      const { data, error } = await supabase().from('sponsor_profiles').select('id, name, company_name').order('created_at', { ascending: false }).limit(100)
      if (error) throw error
      return data as SponsorOption[]
    },
  })

/** usePitchTrack asks a sponsor to sponsor a track (the database refuses a sponsored track). */
export function usePitchTrack(userId: string | undefined) {
  const qc = useQueryClient()
  return useMutation({
    retry: false,
    mutationFn: async ({ trackId, sponsorId, pitch }: { trackId: string; sponsorId: string; pitch: string }) => {
      if (!userId) throw new Error('Sign in as an artist to pitch a track')
      const { error } = await supabase()
        .from('sponsor_artist_invites')
        .insert({ artist_id: userId, sponsor_id: sponsorId, track_id: trackId, pitch: pitch.trim() || null })
      if (error) throw new Error(error.code === '23505' ? 'You already have an open request for this track with this sponsor' : error.message)
    },
    onSuccess: () => refreshMoney(qc),
  })
}
