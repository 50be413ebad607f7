CREATE OR REPLACE FUNCTION public.upsert_user_session(p_user_id uuid, p_session_id text, p_device_info text DEFAULT NULL,
  p_ip_address text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE uid uuid := backline.require_self(p_user_id);
BEGIN
  IF coalesce(btrim(p_session_id), '') = '' THEN
    RAISE EXCEPTION 'p_session_id is required' USING ERRCODE = '22023';
  END IF;
  INSERT INTO public.user_sessions (user_id, session_id, device_info, ip_address)
  VALUES (uid, left(p_session_id, 200), left(p_device_info, 1000), backline.request_ip())
  ON CONFLICT (user_id, session_id) DO UPDATE SET
    device_info = EXCLUDED.device_info, ip_address = EXCLUDED.ip_address, last_seen = now();
  -- Heartbeats are frequent and cheap: a good moment to drop lapsed badges.
  PERFORM backline.expire_verifications();
END $$;

REVOKE ALL ON FUNCTION public.upsert_user_session(uuid, text, text, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.upsert_user_session(uuid, text, text, text) TO authenticated, service_role;
