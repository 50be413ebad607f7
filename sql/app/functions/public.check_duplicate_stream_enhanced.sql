-- Would one more stream of the track count? Per IP when the gateway knows
-- the address, else per user (the spec's server-side fallback).
CREATE OR REPLACE FUNCTION public.check_duplicate_stream_enhanced(p_track_id uuid, p_user_id uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_self(p_user_id);
  ip text := backline.ip_key(backline.request_ip());
  max_n int := backline.setting_num('duplicate_limit_per_ip')::int;
  hours int := backline.setting_num('duplicate_window_hours')::int;
  by_ip int := 0;
  by_user int;
  kind text := CASE WHEN ip IS NULL THEN 'user' ELSE 'ip' END;
  n int;
BEGIN
  IF ip IS NOT NULL THEN
    SELECT count(*) INTO by_ip FROM public.streams
    WHERE track_id = p_track_id AND ip_address = ip AND is_valid AND created_at > now() - make_interval(hours => hours);
  END IF;
  SELECT count(*) INTO by_user FROM public.streams
  WHERE track_id = p_track_id AND user_id = uid AND is_valid AND created_at > now() - make_interval(hours => hours);
  n := CASE kind WHEN 'ip' THEN by_ip ELSE by_user END;
  RETURN jsonb_build_object(
    'is_duplicate', n >= max_n,
    'allowance_type', kind,
    'stream_count', n,
    'streams_from_ip', by_ip,
    'streams_by_user', by_user,
    'max_allowed', max_n,
    'window_hours', hours,
    'message', CASE WHEN n >= max_n THEN
      format('This track has been streamed %s times from your location in %s hours (max: %s)', n, hours, max_n) END);
END $$;

REVOKE ALL ON FUNCTION public.check_duplicate_stream_enhanced(uuid, uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.check_duplicate_stream_enhanced(uuid, uuid) TO authenticated, service_role;
