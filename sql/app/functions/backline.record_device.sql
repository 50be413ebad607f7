-- Records (or refreshes) a device of a user with the server's trust score for
-- it, and returns the score. update_device_fingerprint (the spec's call) and
-- start_play (the device a play comes from) both use it; the address is the
-- gateway's, never the client's claim.
CREATE OR REPLACE FUNCTION backline.record_device(p_user_id uuid, p_fingerprint text, p_user_agent text,
  p_screen_resolution text, p_timezone text, p_language text, p_platform text, p_details jsonb)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  score int := backline.device_trust_score(p_user_agent, p_screen_resolution, p_details);
BEGIN
  IF coalesce(btrim(p_fingerprint), '') = '' THEN
    RAISE EXCEPTION 'p_device_fingerprint is required' USING ERRCODE = '22023';
  END IF;
  INSERT INTO public.device_fingerprints AS f (user_id, fingerprint, user_agent, screen_resolution, timezone,
    language, platform, details, ip_address, trust_score)
  VALUES (p_user_id, left(p_fingerprint, 500), left(p_user_agent, 1000), left(p_screen_resolution, 50),
    left(p_timezone, 100), left(p_language, 50), left(p_platform, 100), coalesce(p_details, '{}'),
    backline.request_ip(), score)
  ON CONFLICT (user_id, fingerprint) DO UPDATE SET
    user_agent = EXCLUDED.user_agent, screen_resolution = EXCLUDED.screen_resolution,
    timezone = EXCLUDED.timezone, language = EXCLUDED.language, platform = EXCLUDED.platform,
    details = EXCLUDED.details, ip_address = EXCLUDED.ip_address, trust_score = EXCLUDED.trust_score,
    last_seen = now(), seen_count = f.seen_count + 1;
  RETURN score;
END $$;

REVOKE ALL ON FUNCTION backline.record_device(uuid, text, text, text, text, text, text, jsonb) FROM PUBLIC, anon, authenticated, service_role;
