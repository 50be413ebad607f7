CREATE OR REPLACE FUNCTION public.update_device_fingerprint(p_user_id uuid, p_device_fingerprint text,
  p_user_agent text DEFAULT NULL, p_screen_resolution text DEFAULT NULL, p_timezone text DEFAULT NULL,
  p_language text DEFAULT NULL, p_platform text DEFAULT NULL, p_ip_address text DEFAULT NULL,
  p_device_details jsonb DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_self(p_user_id);
  score int;
BEGIN
  score := backline.record_device(uid, p_device_fingerprint, p_user_agent, p_screen_resolution, p_timezone,
    p_language, p_platform, p_device_details);
  RETURN jsonb_build_object('device_trust_score', score,
    'is_suspicious', score < backline.setting_num('device_trust_suspicious_below'));
END $$;

REVOKE ALL ON FUNCTION public.update_device_fingerprint(uuid, text, text, text, text, text, text, text, jsonb) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.update_device_fingerprint(uuid, text, text, text, text, text, text, text, jsonb) TO authenticated, service_role;
