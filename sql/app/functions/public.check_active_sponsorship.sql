-- Only an accepted invite, or a track the sponsor sponsors, is an active
-- relationship (spec section 4).
CREATE OR REPLACE FUNCTION public.check_active_sponsorship(p_artist_id uuid, p_sponsor_id uuid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT EXISTS (SELECT 1 FROM public.sponsor_artist_invites
                 WHERE artist_id = p_artist_id AND sponsor_id = p_sponsor_id AND status = 'accepted')
      OR EXISTS (SELECT 1 FROM public.tracks
                 WHERE artist_id = p_artist_id AND sponsor_id = p_sponsor_id AND is_sponsored)
$$;

REVOKE ALL ON FUNCTION public.check_active_sponsorship(uuid, uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.check_active_sponsorship(uuid, uuid) TO authenticated, service_role;
