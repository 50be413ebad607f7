CREATE OR REPLACE FUNCTION public.record_stream_for_duplicate_prevention(p_user_id uuid, p_track_id uuid,
  p_device_fingerprint text DEFAULT NULL, p_ip_address text DEFAULT NULL, p_session_id text DEFAULT NULL,
  p_stream_duration integer DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_self(p_user_id);
  v_id uuid;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM public.tracks WHERE tracks.id = p_track_id) THEN
    RAISE EXCEPTION 'Track not found' USING ERRCODE = 'P0002';
  END IF;
  INSERT INTO public.stream_records (user_id, track_id, device_fingerprint, session_id, ip_address, stream_duration)
  VALUES (uid, p_track_id, left(p_device_fingerprint, 500), left(p_session_id, 200), backline.request_ip(),
          greatest(coalesce(p_stream_duration, 0), 0))
  RETURNING stream_records.id INTO v_id;
  RETURN jsonb_build_object('success', true, 'id', v_id);
END $$;

REVOKE ALL ON FUNCTION public.record_stream_for_duplicate_prevention(uuid, uuid, text, text, text, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.record_stream_for_duplicate_prevention(uuid, uuid, text, text, text, integer) TO authenticated, service_role;
