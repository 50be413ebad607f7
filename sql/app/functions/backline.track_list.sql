-- Tracks as the app's lists show them: the rows of p_ids the caller may see
-- (the tracks policy's rule, spelt out because the SECURITY DEFINER
-- functions that call it read past row-level security: an active track, or
-- the caller's own, or any for an admin), in p_ids' order, and the people
-- they name.
CREATE OR REPLACE FUNCTION backline.track_list(p_ids uuid[]) RETURNS jsonb
LANGUAGE sql STABLE SECURITY INVOKER SET search_path = pg_catalog, public, pg_temp AS $$
  WITH t AS (
    SELECT t.*, o.n FROM unnest(p_ids) WITH ORDINALITY AS o(id, n) JOIN public.tracks t ON t.id = o.id
    WHERE t.status = 'active' OR t.artist_id = backline.active_uid() OR public.is_admin()
  )
  SELECT jsonb_build_object(
    'tracks', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'id', t.id, 'title', t.title, 'artist_id', t.artist_id, 'sponsor_id', t.sponsor_id, 'is_sponsored', t.is_sponsored,
        'streams', t.streams, 'cover_url', t.cover_url, 'audio_url', t.audio_url, 'duration', t.duration,
        'created_at', t.created_at, 'release_date', t.release_date, 'description', t.description, 'genre', t.genre,
        'is_explicit', t.is_explicit) ORDER BY t.n), '[]'::jsonb) FROM t),
    'people', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', p.id, 'display_name', p.display_name,
        'username', p.username, 'avatar_url', p.avatar_url)), '[]'::jsonb)
      FROM public.public_profiles p
      WHERE p.id IN (SELECT t.artist_id FROM t UNION SELECT t.sponsor_id FROM t)))
$$;

REVOKE ALL ON FUNCTION backline.track_list(uuid[]) FROM PUBLIC, anon, authenticated, service_role;
