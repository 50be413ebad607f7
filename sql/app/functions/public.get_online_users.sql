-- Who was seen recently (not for a suspended caller).
CREATE OR REPLACE FUNCTION public.get_online_users() RETURNS TABLE (user_id uuid, last_seen timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT s.user_id, max(s.last_seen)
  FROM public.user_sessions s
  WHERE s.last_seen > now() - make_interval(secs => backline.setting_num('online_window_seconds')::int)
    AND backline.caller_is_active()
  GROUP BY s.user_id
$$;

REVOKE ALL ON FUNCTION public.get_online_users() FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_online_users() TO authenticated, service_role;
