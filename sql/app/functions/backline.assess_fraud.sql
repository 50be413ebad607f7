-- The fraud assessment used by detect_stream_fraud, the stream trigger and
-- the sponsored-payment check. Signals: the device's trust score, a device
-- shared by many accounts, many accounts streaming from one address, and the
-- user's own velocity. p_ip_key is the address as streams store it
-- (backline.ip_key). Risk: low < 25 <= medium < 55 <= high < 80 <= critical;
-- critical means block, high throttle, otherwise allow.
CREATE OR REPLACE FUNCTION backline.assess_fraud(p_user_id uuid, p_track_id uuid, p_fingerprint text, p_ip_key text)
RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  trust int;
  suspicious_below int := backline.setting_num('device_trust_suspicious_below')::int;
  per_hour int := backline.setting_num('velocity_per_hour')::int;
  shared int := 0;
  ip_users int := 0;
  hour_count int := 0;
  risk int := 0;
  ip_risk int := 0;
  reasons text[] := '{}';
  level text;
BEGIN
  -- The device: the submitted fingerprint if this user registered it, else
  -- the user's most recent device, else unknown (70: unverified).
  SELECT trust_score INTO trust FROM public.device_fingerprints
  WHERE user_id = p_user_id AND (p_fingerprint IS NULL OR fingerprint = p_fingerprint)
  ORDER BY (fingerprint = p_fingerprint) DESC NULLS LAST, last_seen DESC LIMIT 1;
  trust := coalesce(trust, 70);
  IF trust < 20 THEN
    risk := risk + 85;
    reasons := reasons || format('Automated or headless device (trust score %s)', trust);
  ELSIF trust < suspicious_below THEN
    risk := risk + 35;
    reasons := reasons || format('Suspicious device (trust score %s)', trust);
  END IF;

  IF p_fingerprint IS NOT NULL THEN
    SELECT count(DISTINCT user_id) INTO shared FROM public.device_fingerprints
    WHERE fingerprint = p_fingerprint AND last_seen > now() - interval '30 days';
    IF shared >= 5 THEN
      risk := risk + 40;
      reasons := reasons || format('Device shared by %s accounts', shared);
    ELSIF shared >= 3 THEN
      risk := risk + 20;
      reasons := reasons || format('Device shared by %s accounts', shared);
    END IF;
  END IF;

  IF p_ip_key IS NULL THEN
    ip_risk := 20;
    risk := risk + 10;
    reasons := reasons || 'IP address unknown'::text;
  ELSE
    SELECT count(DISTINCT user_id) INTO ip_users FROM public.streams
    WHERE ip_address = p_ip_key AND is_valid AND created_at > now() - interval '24 hours';
    ip_risk := least(100, ip_users * 8);
    IF ip_users >= 10 THEN
      risk := risk + 35;
      reasons := reasons || format('%s accounts streaming from this IP in 24 hours', ip_users);
    ELSIF ip_users >= 5 THEN
      risk := risk + 15;
      reasons := reasons || format('%s accounts streaming from this IP in 24 hours', ip_users);
    END IF;
  END IF;

  SELECT count(*) INTO hour_count FROM public.streams
  WHERE user_id = p_user_id AND is_valid AND created_at > now() - interval '1 hour';
  IF hour_count >= per_hour THEN
    risk := risk + 30;
    reasons := reasons || format('Velocity limit exceeded: %s streams in last hour', hour_count);
  END IF;

  level := CASE WHEN risk >= 80 THEN 'critical' WHEN risk >= 55 THEN 'high' WHEN risk >= 25 THEN 'medium' ELSE 'low' END;
  RETURN jsonb_build_object(
    'fraud_detected', level IN ('high', 'critical'),
    'risk_level', level,
    'risk_score', least(risk, 100),
    'fraud_reasons', to_jsonb(reasons),
    'device_trust_score', trust,
    'ip_risk_score', ip_risk,
    'recommendation', CASE level WHEN 'critical' THEN 'block' WHEN 'high' THEN 'throttle' ELSE 'allow' END);
END $$;

REVOKE ALL ON FUNCTION backline.assess_fraud(uuid, uuid, text, text) FROM PUBLIC, anon, authenticated, service_role;
