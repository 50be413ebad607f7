-- The player's report of how long a play has been listened to, sent when it
-- pauses or ends (the stream itself was recorded at 30 s). The play keeps the
-- longest report, never more than the server measured since the play started
-- (plus play_clock_grace_seconds) nor the track's length when it is known, so
-- a client cannot claim a listen it did not have time for. Only the play's
-- listener may report it (`Play not found`, P0002). Answers what is kept.
CREATE OR REPLACE FUNCTION public.record_listen(p_play_id uuid, p_seconds integer) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  ps public.play_sessions;
  track_seconds integer;
  measured integer;
  kept integer;
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'not signed in' USING ERRCODE = '42501';
  END IF;
  IF p_seconds IS NULL OR p_seconds < 0 THEN
    RAISE EXCEPTION 'Seconds listened must be zero or more' USING ERRCODE = '22023';
  END IF;
  SELECT * INTO ps FROM public.play_sessions WHERE id = p_play_id AND user_id = uid FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Play not found' USING ERRCODE = 'P0002';
  END IF;
  SELECT duration INTO track_seconds FROM public.tracks WHERE id = ps.track_id;
  measured := floor(extract(epoch FROM now() - ps.started_at) + backline.setting_num('play_clock_grace_seconds'))::int;
  kept := greatest(coalesce(ps.listened_seconds, 0), least(p_seconds, measured, coalesce(track_seconds, p_seconds)));
  UPDATE public.play_sessions SET listened_seconds = kept WHERE id = ps.id;
  RETURN kept;
END $$;

REVOKE ALL ON FUNCTION public.record_listen(uuid, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.record_listen(uuid, integer) TO authenticated, service_role;
