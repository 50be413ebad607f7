-- The signed-in listener's home in one call, each section a track list
-- (backline.track_list: tracks and the people they name):
--   recently_played: the tracks of their latest streams, latest first, once each;
--   because_you_liked: {artist, tracks}: the artist of their latest like (else
--     of their latest stream) and what that artist's listeners also play
--     (backline.co_listened); null without either;
--   new_releases: the newest tracks of the artists they follow;
--   genres: the genres of the catalogue, for genre stations (get_genre_station).
-- SECURITY DEFINER (co-listening reads other listeners' likes and streams):
-- the caller's own streams, likes and follows are read by their id, and
-- backline.track_list keeps to the tracks they may see.
CREATE OR REPLACE FUNCTION public.get_listener_home(p_limit integer DEFAULT 12) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  n integer := least(greatest(coalesce(p_limit, 12), 1), 50);
  seed uuid;
  liked jsonb;
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'Sign in to see your home' USING ERRCODE = '42501';
  END IF;
  IF NOT backline.caller_is_active() THEN
    RAISE EXCEPTION 'Your account is suspended' USING ERRCODE = 'P0001';
  END IF;

  SELECT t.artist_id INTO seed FROM public.favorites f JOIN public.tracks t ON t.id = f.track_id
  WHERE f.user_id = uid ORDER BY f.created_at DESC LIMIT 1;
  IF seed IS NULL THEN
    SELECT t.artist_id INTO seed FROM public.streams s JOIN public.tracks t ON t.id = s.track_id
    WHERE s.user_id = uid ORDER BY s.created_at DESC LIMIT 1;
  END IF;
  IF seed IS NOT NULL THEN
    liked := jsonb_build_object('artist', (
        SELECT jsonb_build_object('id', a.id, 'name', a.name, 'username', p.username, 'avatar_url', p.avatar_url)
        FROM public.artist_profiles a JOIN public.public_profiles p ON p.id = a.id WHERE a.id = seed))
      || backline.track_list(backline.co_listened(seed, n));
  END IF;

  RETURN jsonb_build_object(
    'recently_played', backline.track_list(ARRAY(
      SELECT r.track_id FROM (
        SELECT s.track_id, max(s.created_at) AS at
        FROM (SELECT s.track_id, s.created_at FROM public.streams s WHERE s.user_id = uid
              ORDER BY s.created_at DESC LIMIT 200) s
        GROUP BY s.track_id) r
      ORDER BY r.at DESC LIMIT n)),
    'because_you_liked', liked,
    'new_releases', backline.track_list(ARRAY(
      SELECT t.id FROM public.follows f
        CROSS JOIN LATERAL (SELECT t.id, t.created_at FROM public.tracks t
                            WHERE t.artist_id = f.artist_id AND t.status = 'active'
                            ORDER BY t.created_at DESC LIMIT n) t
      WHERE f.follower_id = uid
      ORDER BY t.created_at DESC, t.id LIMIT n)),
    'genres', public.list_genres());
END $$;

REVOKE ALL ON FUNCTION public.get_listener_home(integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_listener_home(integer) TO authenticated;
