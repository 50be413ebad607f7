CREATE OR REPLACE FUNCTION public.update_device_fingerprint(p_user_id uuid, p_device_fingerprint text,
  p_user_agent text DEFAULT NULL, p_screen_resolution text DEFAULT NULL, p_timezone text DEFAULT NULL,
  p_language text DEFAULT NULL, p_platform text DEFAULT NULL, p_ip_address text DEFAULT NULL,
  p_device_details jsonb DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_self(p_user_id);
  score int := backline.device_trust_score(p_user_agent, p_screen_resolution, p_device_details);
BEGIN
  IF coalesce(btrim(p_device_fingerprint), '') = '' THEN
    RAISE EXCEPTION 'p_device_fingerprint is required' USING ERRCODE = '22023';
  END IF;
  INSERT INTO public.device_fingerprints AS f (user_id, fingerprint, user_agent, screen_resolution, timezone,
    language, platform, details, ip_address, trust_score)
  VALUES (uid, left(p_device_fingerprint, 500), left(p_user_agent, 1000), left(p_screen_resolution, 50),
    left(p_timezone, 100), left(p_language, 50), left(p_platform, 100), coalesce(p_device_details, '{}'),
    backline.request_ip(), score)
  ON CONFLICT (user_id, fingerprint) DO UPDATE SET
    user_agent = EXCLUDED.user_agent, screen_resolution = EXCLUDED.screen_resolution,
    timezone = EXCLUDED.timezone, language = EXCLUDED.language, platform = EXCLUDED.platform,
    details = EXCLUDED.details, ip_address = EXCLUDED.ip_address, trust_score = EXCLUDED.trust_score,
    last_seen = now(), seen_count = f.seen_count + 1;
  RETURN jsonb_build_object('device_trust_score', score,
    'is_suspicious', score < backline.setting_num('device_trust_suspicious_below'));
END $$;

REVOKE ALL ON FUNCTION public.update_device_fingerprint(uuid, text, text, text, text, text, text, text, jsonb) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.update_device_fingerprint(uuid, text, text, text, text, text, text, text, jsonb) TO authenticated, service_role;
