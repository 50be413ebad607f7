-- A playlist as its page shows it: the playlist (owner's name and username,
-- public or not, cover) and its tracks in order (backline.track_list). Anyone
-- may read a public playlist by its link, unless its owner is suspended; a
-- private one is its owner's ('Playlist not found', P0002, otherwise: the
-- playlists policies' rule, spelt out as this runs SECURITY DEFINER, which
-- keeps backline.track_list out of the API roles' reach).
-- Without an id it is the caller's "Liked songs": their liked tracks, newest
-- like first, as a playlist of their own that is never public.
CREATE OR REPLACE FUNCTION public.get_playlist(p_playlist_id uuid DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.active_uid();
  l record;
BEGIN
  IF uid IS NULL AND auth.uid() IS NOT NULL THEN
    RAISE EXCEPTION 'Your account is suspended' USING ERRCODE = 'P0001';
  END IF;
  IF p_playlist_id IS NULL THEN
    IF uid IS NULL THEN
      RAISE EXCEPTION 'Sign in to see your liked songs' USING ERRCODE = '42501';
    END IF;
    RETURN jsonb_build_object('playlist', jsonb_build_object('id', NULL, 'kind', 'liked', 'name', 'Liked songs',
        'is_public', false, 'cover_url', NULL, 'description', NULL, 'owner_id', uid,
        'owner_name', (SELECT coalesce(nullif(p.display_name, ''), p.username) FROM public.public_profiles p WHERE p.id = uid),
        'owner_username', (SELECT p.username FROM public.public_profiles p WHERE p.id = uid)))
      || backline.track_list(ARRAY(SELECT f.track_id FROM public.favorites f WHERE f.user_id = uid ORDER BY f.created_at DESC));
  END IF;
  SELECT pl.*, coalesce(nullif(p.display_name, ''), p.username) AS owner_name, p.username AS owner_username INTO l
  FROM public.playlists pl JOIN public.public_profiles p ON p.id = pl.user_id
  WHERE pl.id = p_playlist_id
    AND (pl.user_id = uid OR (pl.is_public AND NOT p.is_suspended));
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Playlist not found' USING ERRCODE = 'P0002';
  END IF;
  RETURN jsonb_build_object('playlist', jsonb_build_object('id', l.id, 'kind', 'playlist', 'name', l.name,
      'is_public', l.is_public, 'cover_url', l.cover_url, 'description', l.description, 'owner_id', l.user_id,
      'owner_name', l.owner_name, 'owner_username', l.owner_username, 'updated_at', l.updated_at))
    || backline.track_list(ARRAY(SELECT pt.track_id FROM public.playlist_tracks pt
                                 WHERE pt.playlist_id = l.id ORDER BY pt.position, pt.added_at));
END $$;

REVOKE ALL ON FUNCTION public.get_playlist(uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_playlist(uuid) TO anon, authenticated, service_role;
