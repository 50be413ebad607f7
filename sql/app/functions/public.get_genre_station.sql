-- A genre station: the genre's most-streamed active tracks (case-insensitive),
-- a queue to play in order, read along tracks_genre_top_idx.
CREATE OR REPLACE FUNCTION public.get_genre_station(p_genre text, p_limit integer DEFAULT 50) RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT jsonb_build_object('genre', lower(btrim(p_genre))) || backline.track_list(ARRAY(
    SELECT t.id FROM public.tracks t
    WHERE lower(t.genre) = lower(btrim(p_genre)) AND t.status = 'active'
    ORDER BY t.streams DESC
    LIMIT least(greatest(coalesce(p_limit, 50), 1), 100)))
$$;

REVOKE ALL ON FUNCTION public.get_genre_station(text, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_genre_station(text, integer) TO anon, authenticated, service_role;
