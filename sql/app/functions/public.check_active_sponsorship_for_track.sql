-- True when an accepted invite binds the pair, for the track or for no track.
CREATE OR REPLACE FUNCTION public.check_active_sponsorship_for_track(p_artist_id uuid, p_sponsor_id uuid, p_track_id uuid)
RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT EXISTS (
    SELECT 1 FROM public.sponsor_artist_invites
    WHERE artist_id = p_artist_id AND sponsor_id = p_sponsor_id AND status = 'accepted'
      AND (track_id IS NULL OR track_id = p_track_id))
$$;

REVOKE ALL ON FUNCTION public.check_active_sponsorship_for_track(uuid, uuid, uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.check_active_sponsorship_for_track(uuid, uuid, uuid) TO authenticated, service_role;
