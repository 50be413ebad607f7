-- The spec's fallback increments. Calling them cannot inflate anything:
-- they recount valid streams. The row lock is taken before counting, so a
-- concurrent stream's increment is never lost.
CREATE OR REPLACE FUNCTION public.increment_track_streams(p_track_id uuid) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE n bigint;
BEGIN
  PERFORM 1 FROM public.tracks WHERE id = p_track_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN 0;
  END IF;
  SELECT count(*) INTO n FROM public.streams WHERE track_id = p_track_id AND is_valid;
  UPDATE public.tracks SET streams = n WHERE id = p_track_id AND streams IS DISTINCT FROM n;
  RETURN n;
END $$;

REVOKE ALL ON FUNCTION public.increment_track_streams(uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.increment_track_streams(uuid) TO authenticated, service_role;
