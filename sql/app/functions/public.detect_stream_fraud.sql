CREATE OR REPLACE FUNCTION public.detect_stream_fraud(p_user_id uuid, p_track_id uuid, p_device_fingerprint text,
  p_ip_address text DEFAULT NULL, p_user_agent text DEFAULT NULL, p_session_id text DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_self(p_user_id);
  fp text := coalesce(nullif(p_device_fingerprint, ''), backline.latest_fingerprint(uid));
  result jsonb;
BEGIN
  result := backline.assess_fraud(uid, p_track_id, fp, backline.ip_key(backline.request_ip()));
  -- A user agent naming a headless or automated browser is itself a signal,
  -- even for a device never registered.
  IF p_user_agent IS NOT NULL AND backline.device_trust_score(p_user_agent, '1920x1080', '{"hardwareConcurrency": 1}') < 60
     AND result ->> 'risk_level' <> 'critical' THEN
    result := result || jsonb_build_object('fraud_detected', true, 'risk_level', 'critical', 'recommendation', 'block',
      'fraud_reasons', (result -> 'fraud_reasons') || to_jsonb('Automated or headless browser'::text));
  END IF;
  IF result ->> 'risk_level' IN ('high', 'critical') THEN
    PERFORM backline.log_activity(uid, 'fraud.detected', 'track', p_track_id::text, result);
  END IF;
  RETURN result;
END $$;

REVOKE ALL ON FUNCTION public.detect_stream_fraud(uuid, uuid, text, text, text, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.detect_stream_fraud(uuid, uuid, text, text, text, text) TO authenticated, service_role;
