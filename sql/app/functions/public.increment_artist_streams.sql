CREATE OR REPLACE FUNCTION public.increment_artist_streams(p_artist_id uuid) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE n bigint;
BEGIN
  PERFORM 1 FROM public.artist_profiles WHERE id = p_artist_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN 0;
  END IF;
  SELECT count(*) INTO n FROM public.streams s JOIN public.tracks t ON t.id = s.track_id
  WHERE t.artist_id = p_artist_id AND s.is_valid;
  UPDATE public.artist_profiles SET stream_count = n WHERE id = p_artist_id AND stream_count IS DISTINCT FROM n;
  RETURN n;
END $$;

REVOKE ALL ON FUNCTION public.increment_artist_streams(uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.increment_artist_streams(uuid) TO authenticated, service_role;
