-- As increment_track_streams, for the artist's stream_count.
CREATE OR REPLACE FUNCTION public.increment_artist_streams(p_artist_id uuid) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT coalesce((SELECT stream_count FROM public.artist_profiles WHERE id = p_artist_id), 0)
$$;

REVOKE ALL ON FUNCTION public.increment_artist_streams(uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.increment_artist_streams(uuid) TO authenticated, service_role;
