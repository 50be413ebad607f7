-- Approve (with an expiry in the future) or reject (with a reason). An admin
-- cannot review their own submission (checked once the submission is
-- locked).
CREATE OR REPLACE FUNCTION public.admin_review_kyc(p_submission_id uuid, p_approve boolean, p_expires_at timestamptz DEFAULT NULL,
  p_reason text DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  sub public.kyc_submissions;
  before jsonb;
  v_reason text;
BEGIN
  SELECT * INTO sub FROM public.kyc_submissions WHERE id = p_submission_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'KYC submission not found' USING ERRCODE = 'P0001';
  END IF;
  IF sub.artist_id = actor THEN
    RAISE EXCEPTION 'Admins cannot review their own KYC submission' USING ERRCODE = 'P0001';
  END IF;
  IF sub.status <> 'pending' THEN
    RAISE EXCEPTION 'KYC submission is already %', sub.status USING ERRCODE = 'P0001';
  END IF;
  IF p_approve IS NULL THEN
    RAISE EXCEPTION 'Choose approve or reject' USING ERRCODE = 'P0001';
  END IF;
  IF p_approve AND (p_expires_at IS NULL OR p_expires_at <= now()) THEN
    RAISE EXCEPTION 'Approval needs an expiry date in the future' USING ERRCODE = 'P0001';
  END IF;
  v_reason := CASE WHEN p_approve THEN nullif(btrim(p_reason), '') ELSE backline.require_reason(p_reason) END;
  SELECT jsonb_build_object('status', sub.status, 'kyc_status', a.kyc_status, 'kyc_expiry_date', a.kyc_expiry_date)
    INTO before FROM public.artist_profiles a WHERE a.id = sub.artist_id;
  UPDATE public.kyc_submissions SET status = CASE WHEN p_approve THEN 'approved' ELSE 'rejected' END,
    reason = v_reason, expires_at = CASE WHEN p_approve THEN p_expires_at END, reviewed_by = actor, reviewed_at = now()
  WHERE id = sub.id;
  -- A rejection leaves an approval still running in place.
  UPDATE public.artist_profiles SET
    kyc_status = CASE WHEN p_approve THEN 'approved'
                      WHEN kyc_status = 'approved' AND (kyc_expiry_date IS NULL OR kyc_expiry_date > now()) THEN kyc_status
                      ELSE 'rejected' END,
    kyc_expiry_date = CASE WHEN p_approve THEN p_expires_at ELSE kyc_expiry_date END
  WHERE id = sub.artist_id;
  PERFORM backline.audit(actor, CASE WHEN p_approve THEN 'kyc.approve' ELSE 'kyc.reject' END, 'kyc', sub.id::text,
    v_reason, before,
    (SELECT jsonb_build_object('status', CASE WHEN p_approve THEN 'approved' ELSE 'rejected' END,
       'kyc_status', a.kyc_status, 'kyc_expiry_date', a.kyc_expiry_date)
     FROM public.artist_profiles a WHERE a.id = sub.artist_id));
  IF p_approve THEN
    PERFORM backline.notify(sub.artist_id, 'system_update', 'KYC approved',
      format('Your identity verification was approved until %s.', to_char(p_expires_at AT TIME ZONE 'Africa/Lagos', 'FMDD Mon YYYY')),
      jsonb_build_object('submission_id', sub.id, 'expires_at', p_expires_at));
  ELSE
    PERFORM backline.notify(sub.artist_id, 'system_update', 'KYC rejected',
      format('Your identity verification was rejected: %s', v_reason),
      jsonb_build_object('submission_id', sub.id, 'reason', v_reason));
  END IF;
  RETURN jsonb_build_object('success', true, 'id', sub.id, 'status', CASE WHEN p_approve THEN 'approved' ELSE 'rejected' END);
END $$;

REVOKE ALL ON FUNCTION public.admin_review_kyc(uuid, boolean, timestamp with time zone, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_review_kyc(uuid, boolean, timestamp with time zone, text) TO authenticated, service_role;
