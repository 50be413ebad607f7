-- The user's most recently seen device fingerprint (the stream trigger and
-- the payment check have no fingerprint argument).
CREATE OR REPLACE FUNCTION backline.latest_fingerprint(p_user_id uuid) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT fingerprint FROM public.device_fingerprints WHERE user_id = p_user_id ORDER BY last_seen DESC LIMIT 1
$$;

REVOKE ALL ON FUNCTION backline.latest_fingerprint(uuid) FROM PUBLIC, anon, authenticated, service_role;
