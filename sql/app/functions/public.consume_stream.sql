-- Consumes one stream of today's allowance for the caller's current play,
-- once per play: calling it again for the same play returns true without
-- consuming more. Without an open play it only reports whether room is left
-- (the stream itself consumes then).
CREATE OR REPLACE FUNCTION public.consume_stream(p_user_id uuid) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_self(p_user_id);
  ps public.play_sessions;
  lim public.daily_stream_limits;
BEGIN
  PERFORM backline.lock_key('user:' || uid);
  lim := backline.daily_limit(uid);
  SELECT * INTO ps FROM public.play_sessions
  WHERE user_id = uid AND closed_at IS NULL AND started_at > now() - interval '12 hours'
  ORDER BY started_at DESC LIMIT 1 FOR UPDATE;
  IF NOT FOUND THEN
    RETURN lim.streams_remaining > 0;
  END IF;
  IF ps.allowance_consumed THEN
    RETURN true;
  END IF;
  UPDATE public.daily_stream_limits SET streams_used = streams_used + 1
  WHERE user_id = uid AND limit_date = lim.limit_date AND streams_remaining > 0;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  UPDATE public.play_sessions SET allowance_consumed = true WHERE id = ps.id;
  RETURN true;
END $$;

REVOKE ALL ON FUNCTION public.consume_stream(uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.consume_stream(uuid) TO authenticated, service_role;
