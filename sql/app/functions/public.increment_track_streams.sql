-- The spec's fallback increments, called by the player after each play. The
-- counter is already right (backline.count_valid_streams keeps it in the
-- stream's own transaction), so they only read it: no recount, no lock, and
-- calling them cannot inflate anything. 0 for an unknown track.
CREATE OR REPLACE FUNCTION public.increment_track_streams(p_track_id uuid) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT coalesce((SELECT streams FROM public.tracks WHERE id = p_track_id), 0)
$$;

REVOKE ALL ON FUNCTION public.increment_track_streams(uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.increment_track_streams(uuid) TO authenticated, service_role;
