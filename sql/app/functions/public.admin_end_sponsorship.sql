-- Ends a track's sponsorship: the track is unsponsored, and the pair's
-- accepted invites for it (or for no track in particular) end, so the track
-- cannot be re-sponsored without a new invite. Both parties are told.
CREATE OR REPLACE FUNCTION public.admin_end_sponsorship(p_track_id uuid, p_reason text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  v_reason text := backline.require_reason(p_reason);
  t public.tracks;
  ended int;
BEGIN
  SELECT * INTO t FROM public.tracks WHERE id = p_track_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Track not found' USING ERRCODE = 'P0001';
  END IF;
  IF NOT t.is_sponsored OR t.sponsor_id IS NULL THEN
    RAISE EXCEPTION 'Track is not sponsored' USING ERRCODE = 'P0001';
  END IF;
  UPDATE public.tracks SET is_sponsored = false, sponsor_id = NULL WHERE id = t.id;
  UPDATE public.sponsor_artist_invites SET status = 'ended', responded_at = coalesce(responded_at, now())
  WHERE artist_id = t.artist_id AND sponsor_id = t.sponsor_id AND status = 'accepted'
    AND (track_id = t.id OR track_id IS NULL);
  GET DIAGNOSTICS ended = ROW_COUNT;
  PERFORM backline.audit(actor, 'sponsorship.end', 'track', t.id::text, v_reason,
    jsonb_build_object('is_sponsored', true, 'sponsor_id', t.sponsor_id),
    jsonb_build_object('is_sponsored', false, 'sponsor_id', NULL, 'invites_ended', ended));
  PERFORM backline.notify(t.artist_id, 'system_update', 'Sponsorship ended',
    format('The sponsorship of "%s" by %s has ended: %s', t.title, backline.person_name(t.sponsor_id), v_reason),
    jsonb_build_object('track_id', t.id, 'sponsor_id', t.sponsor_id, 'reason', v_reason));
  PERFORM backline.notify(t.sponsor_id, 'system_update', 'Sponsorship ended',
    format('Your sponsorship of "%s" has ended: %s', t.title, v_reason),
    jsonb_build_object('track_id', t.id, 'artist_id', t.artist_id, 'reason', v_reason));
  RETURN jsonb_build_object('success', true, 'track_id', t.id, 'invites_ended', ended);
END $$;

REVOKE ALL ON FUNCTION public.admin_end_sponsorship(uuid, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_end_sponsorship(uuid, text) TO authenticated, service_role;
