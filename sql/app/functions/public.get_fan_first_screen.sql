-- The fan's first screen: the dashboard, the playlists (track ids in
-- order) and the liked tracks (newest like first), with the rows of those
-- tracks that the caller may see and the people they name. Volatile, as
-- get_fan_dashboard creates today's allowance on first use.
CREATE OR REPLACE FUNCTION public.get_fan_first_screen() RETURNS jsonb
LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  dashboard jsonb := public.get_fan_dashboard();
  lists jsonb;
  liked uuid[];
  ids uuid[];
BEGIN
  SELECT coalesce(jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'track_ids',
      (SELECT coalesce(jsonb_agg(pt.track_id ORDER BY pt.position), '[]'::jsonb)
       FROM public.playlist_tracks pt WHERE pt.playlist_id = l.id)) ORDER BY l.created_at), '[]'::jsonb)
    INTO lists
    FROM public.playlists l WHERE l.user_id = uid;
  liked := ARRAY(SELECT f.track_id FROM public.favorites f WHERE f.user_id = uid ORDER BY f.created_at DESC);
  ids := ARRAY(SELECT DISTINCT x FROM (
    SELECT unnest(liked) AS x
    UNION
    SELECT pt.track_id FROM public.playlist_tracks pt JOIN public.playlists l ON l.id = pt.playlist_id WHERE l.user_id = uid) t);
  RETURN jsonb_build_object(
    'dashboard', dashboard,
    'playlists', lists,
    'favorites', to_jsonb(liked),
    'tracks', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'id', t.id, 'title', t.title, 'artist_id', t.artist_id, 'sponsor_id', t.sponsor_id, 'is_sponsored', t.is_sponsored,
        'streams', t.streams, 'cover_url', t.cover_url, 'audio_url', t.audio_url, 'duration', t.duration,
        'created_at', t.created_at, 'release_date', t.release_date, 'description', t.description, 'genre', t.genre,
        'is_explicit', t.is_explicit)), '[]'::jsonb)
      FROM public.tracks t WHERE t.id = ANY (ids)),
    'people', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', p.id, 'display_name', p.display_name,
        'username', p.username, 'avatar_url', p.avatar_url)), '[]'::jsonb)
      FROM public.public_profiles p
      WHERE p.id IN (SELECT t.artist_id FROM public.tracks t WHERE t.id = ANY (ids)
                     UNION SELECT t.sponsor_id FROM public.tracks t WHERE t.id = ANY (ids))));
END $$;

REVOKE ALL ON FUNCTION public.get_fan_first_screen() FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_fan_first_screen() TO authenticated, service_role;
