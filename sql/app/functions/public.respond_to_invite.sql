-- The invitee answers (for a sponsor's invite that is the artist).
CREATE OR REPLACE FUNCTION public.respond_to_invite(p_invite_id uuid, p_accept boolean) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  inv public.sponsor_artist_invites;
BEGIN
  PERFORM backline.require_active();
  IF p_invite_id IS NULL OR p_accept IS NULL THEN
    RAISE EXCEPTION 'Invalid invitation data' USING ERRCODE = 'P0001';
  END IF;
  SELECT * INTO inv FROM public.sponsor_artist_invites WHERE id = p_invite_id FOR UPDATE;
  IF NOT FOUND OR uid IS NULL
     OR NOT ((inv.initiated_by = 'sponsor' AND inv.artist_id = uid) OR (inv.initiated_by = 'artist' AND inv.sponsor_id = uid)) THEN
    RAISE EXCEPTION 'Invalid invitation data' USING ERRCODE = 'P0001';
  END IF;
  IF inv.status <> 'pending' THEN
    RAISE EXCEPTION 'This invitation has already been answered' USING ERRCODE = 'P0001';
  END IF;
  UPDATE public.sponsor_artist_invites
  SET status = CASE WHEN p_accept THEN 'accepted' ELSE 'rejected' END, responded_at = now()
  WHERE id = inv.id
  RETURNING * INTO inv;
  RETURN jsonb_build_object('success', true, 'invite_id', inv.id, 'status', inv.status, 'track_id', inv.track_id,
    'message', CASE WHEN p_accept THEN 'You have successfully accepted the sponsorship request'
                    ELSE 'You have declined the sponsorship request' END);
END $$;

REVOKE ALL ON FUNCTION public.respond_to_invite(uuid, boolean) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.respond_to_invite(uuid, boolean) TO authenticated, service_role;
