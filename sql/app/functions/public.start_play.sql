-- Called by the player when a track starts. Starting a play closes the
-- caller's other open plays: one listener plays one track at a time, so a
-- stream needs its own 30 s of wall-clock time. A play of a track that is
-- not active does not start, nor does a fan's play once today's allowance is
-- used up (spec section 4: the limit is checked when a track starts). With
-- p_device ({fingerprint, user_agent, screen_resolution, timezone, language,
-- platform, details}) the device is recorded as update_device_fingerprint
-- does, so the fraud checks of the play's stream know it without another
-- request. The play's id is what finish_play takes.
CREATE OR REPLACE FUNCTION public.start_play(p_track_id uuid, p_device jsonb DEFAULT NULL) RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  v_id uuid;
  left_today int;
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'not signed in' USING ERRCODE = '42501';
  END IF;
  PERFORM backline.require_active('User is suspended and cannot generate valid streams');
  IF NOT EXISTS (SELECT 1 FROM public.tracks WHERE tracks.id = p_track_id AND tracks.status = 'active') THEN
    RAISE EXCEPTION 'Track not found' USING ERRCODE = 'P0002';
  END IF;
  PERFORM backline.lock_key('user:' || uid);
  IF (SELECT role FROM public.user_roles WHERE user_id = uid) = 'fan' THEN
    left_today := (backline.daily_limit(uid)).streams_remaining;
    IF left_today <= 0 THEN
      RAISE EXCEPTION 'Daily stream limit reached! You have % streams remaining today.', greatest(left_today, 0)
        USING ERRCODE = 'P0001';
    END IF;
  END IF;
  IF jsonb_typeof(p_device) = 'object' AND coalesce(btrim(p_device ->> 'fingerprint'), '') <> '' THEN
    PERFORM backline.record_device(uid, p_device ->> 'fingerprint', p_device ->> 'user_agent',
      p_device ->> 'screen_resolution', p_device ->> 'timezone', p_device ->> 'language', p_device ->> 'platform',
      CASE WHEN jsonb_typeof(p_device -> 'details') = 'object' THEN p_device -> 'details' END);
  END IF;
  UPDATE public.play_sessions SET closed_at = now() WHERE user_id = uid AND closed_at IS NULL;
  INSERT INTO public.play_sessions (user_id, track_id, ip_address)
  VALUES (uid, p_track_id, backline.request_ip())
  RETURNING play_sessions.id INTO v_id;
  RETURN v_id;
END $$;

REVOKE ALL ON FUNCTION public.start_play(uuid, jsonb) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.start_play(uuid, jsonb) TO authenticated, service_role;
