-- Called by the player when a track starts. Starting a play closes the
-- caller's other open plays: one listener plays one track at a time, so a
-- stream needs its own 30 s of wall-clock time. A play of a track that is
-- not active does not start.
CREATE OR REPLACE FUNCTION public.start_play(p_track_id uuid) RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  v_id uuid;
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'not signed in' USING ERRCODE = '42501';
  END IF;
  PERFORM backline.require_active('User is suspended and cannot generate valid streams');
  IF NOT EXISTS (SELECT 1 FROM public.tracks WHERE tracks.id = p_track_id AND tracks.status = 'active') THEN
    RAISE EXCEPTION 'Track not found' USING ERRCODE = 'P0002';
  END IF;
  PERFORM backline.lock_key('user:' || uid);
  UPDATE public.play_sessions SET closed_at = now() WHERE user_id = uid AND closed_at IS NULL;
  INSERT INTO public.play_sessions (user_id, track_id, ip_address)
  VALUES (uid, p_track_id, backline.request_ip())
  RETURNING play_sessions.id INTO v_id;
  RETURN v_id;
END $$;

REVOKE ALL ON FUNCTION public.start_play(uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.start_play(uuid) TO authenticated, service_role;
