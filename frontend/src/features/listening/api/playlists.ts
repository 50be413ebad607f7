import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'
import { hydrateTracks, TRACK_COLUMNS } from '@/lib/tracks'
import type { Track } from '@/types/api'

// A fan's playlists (the owner's alone, by RLS), their tracks in order, and
// the changes: create, rename, delete, add, remove, reorder in one call.

/** Playlist is a playlist with its tracks in order. */
export interface Playlist {
  id: string
  name: string
  tracks: Track[]
}

const KEY = 'playlists'

/** playlistsQueryKey is the cache of a user's playlists. */
export const playlistsQueryKey = (userId: string | undefined) => [KEY, userId] as const

/** usePlaylists reads the caller's playlists with their tracks (two reads plus the people). */
export const usePlaylists = (userId: string | undefined) =>
  useQuery({
    queryKey: playlistsQueryKey(userId),
    enabled: !!userId,
    queryFn: async (): Promise<Playlist[]> => {
      const sb = supabase()
      const { data: lists, error } = await sb.from('playlists').select('id, name, playlist_tracks(track_id, position)').order('created_at')
      if (error) throw error
      const rows = (lists ?? []) as { id: string; name: string; playlist_tracks: { track_id: string; position: number }[] }[]
      const ids = [...new Set(rows.flatMap((l) => l.playlist_tracks.map((p) => p.track_id)))]
      const { data: trackRows, error: tErr } = ids.length ? await sb.from('tracks').select(TRACK_COLUMNS).in('id', ids) : { data: [], error: null }
      if (tErr) throw tErr
      const byId = new Map((await hydrateTracks(trackRows ?? [])).map((t) => [t.id, t]))
      return rows.map((l) => ({
        id: l.id,
        name: l.name,
        tracks: [...l.playlist_tracks].sort((a, b) => a.position - b.position).flatMap((p) => byId.get(p.track_id) ?? []),
      }))
    },
  })

/** PlaylistAction is one change to the caller's playlists. */
export type PlaylistAction =
  | { kind: 'create'; name: string }
  | { kind: 'rename'; id: string; name: string }
  | { kind: 'delete'; id: string }
  | { kind: 'add'; playlistId: string; trackId: string }
  | { kind: 'removeTrack'; playlistId: string; trackId: string }
  | { kind: 'reorder'; playlistId: string; trackIds: string[] }

async function apply(userId: string | undefined, a: PlaylistAction) {
  const sb = supabase()
  const { error } = await (() => {
    switch (a.kind) {
      case 'create':
        return sb.from('playlists').insert({ name: a.name.trim(), user_id: userId })
      case 'rename':
        return sb.from('playlists').update({ name: a.name.trim() }).eq('id', a.id)
      case 'delete':
        return sb.from('playlists').delete().eq('id', a.id)
      case 'add':
        return sb.from('playlist_tracks').insert({ playlist_id: a.playlistId, track_id: a.trackId })
      case 'removeTrack':
        return sb.from('playlist_tracks').delete().eq('playlist_id', a.playlistId).eq('track_id', a.trackId)
      case 'reorder':
        return sb.rpc('reorder_playlist', { p_playlist_id: a.playlistId, p_track_ids: a.trackIds })
    }
  })()
  if (error) throw new Error(error.code === '23505' ? 'That track is already in the playlist' : error.message)
}

/** usePlaylistAction applies a change; a reorder shows at once and is undone if refused. */
export function usePlaylistAction(userId: string | undefined) {
  const qc = useQueryClient()
  const key = playlistsQueryKey(userId)
  return useMutation({
    retry: false,
    mutationFn: (a: PlaylistAction) => apply(userId, a),
    onMutate: async (a) => {
      if (a.kind !== 'reorder') return undefined
      await qc.cancelQueries({ queryKey: key })
      const before = qc.getQueryData<Playlist[]>(key)
      qc.setQueryData<Playlist[]>(key, (old) =>
        old?.map((l) => (l.id === a.playlistId ? { ...l, tracks: a.trackIds.flatMap((id) => l.tracks.find((t) => t.id === id) ?? []) } : l)),
      )
      return { before }
    },
    onError: (_e, _a, ctx) => ctx?.before && qc.setQueryData(key, ctx.before),
    onSettled: () => qc.invalidateQueries({ queryKey: key }),
  })
}

/** moveItem returns a copy of list with the item at from moved to to. */
export function moveItem<T>(list: T[], from: number, to: number): T[] {
  if (from === to || from < 0 || to < 0 || from >= list.length || to >= list.length) return list
  const copy = [...list]
  const [item] = copy.splice(from, 1)
  copy.splice(to, 0, item)
  return copy
}
