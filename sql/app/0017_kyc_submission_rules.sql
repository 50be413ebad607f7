-- KYC submission rules for the artist's KYC screen (0014 holds the tables
-- and the admin review).
--
-- submit_kyc: the artist is the caller (no other artist can be named); a
-- suspended artist cannot submit; one submission waits for review at a time
-- (now with the artist's row locked, so two at once get the message, not a
-- unique-index error); an approval is not replaced while it runs, except in
-- its last verification_renewal_days days, as paid verification; a NIN is
-- 11 digits and other document numbers are letters, digits, spaces, '-' and
-- '/'; a document names an object the artist uploaded into their own folder
-- of the kyc bucket.
--
-- admin_review_kyc: an admin cannot review their own submission (an artist
-- promoted to admin keeps the submissions made as an artist).

CREATE OR REPLACE FUNCTION public.submit_kyc(p_full_name text, p_document_type text, p_document_number text,
  p_document_path text DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  a public.artist_profiles;
  renew_days int := backline.setting_num('verification_renewal_days')::int;
  v_name text := regexp_replace(btrim(coalesce(p_full_name, '')), '\s+', ' ', 'g');
  v_number text := btrim(coalesce(p_document_number, ''));
  sub public.kyc_submissions;
BEGIN
  IF uid IS NULL OR public.current_user_role() IS DISTINCT FROM 'artist' THEN
    RAISE EXCEPTION 'Only artists can submit KYC' USING ERRCODE = 'P0001';
  END IF;
  -- The artist's row lock serialises their submissions.
  SELECT * INTO a FROM public.artist_profiles WHERE id = uid FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Only artists can submit KYC' USING ERRCODE = 'P0001';
  END IF;
  IF public.is_user_suspended(uid) THEN
    RAISE EXCEPTION 'Suspended accounts cannot submit KYC' USING ERRCODE = 'P0001';
  END IF;
  IF EXISTS (SELECT 1 FROM public.kyc_submissions WHERE artist_id = uid AND status = 'pending') THEN
    RAISE EXCEPTION 'Your KYC submission is already awaiting review' USING ERRCODE = 'P0001';
  END IF;
  IF a.kyc_status = 'approved' AND coalesce(a.kyc_expiry_date, 'infinity') > now() + make_interval(days => renew_days) THEN
    RAISE EXCEPTION 'Your KYC is approved until %. You can resubmit it in its last % days.',
      coalesce(to_char(a.kyc_expiry_date AT TIME ZONE 'Africa/Lagos', 'FMDD Mon YYYY'), 'further notice'), renew_days
      USING ERRCODE = 'P0001';
  END IF;
  IF v_name = '' OR v_number = ''
     OR p_document_type IS NULL OR p_document_type NOT IN ('national_id', 'nin', 'passport', 'drivers_license', 'voters_card') THEN
    RAISE EXCEPTION 'Enter your full name, a document type and its number' USING ERRCODE = 'P0001';
  END IF;
  IF length(v_name) NOT BETWEEN 2 AND 200 THEN
    RAISE EXCEPTION 'Enter your full name as it appears on the document' USING ERRCODE = 'P0001';
  END IF;
  IF p_document_type = 'nin' AND v_number !~ '^[0-9]{11}$' THEN
    RAISE EXCEPTION 'A NIN is 11 digits' USING ERRCODE = 'P0001';
  END IF;
  IF v_number !~ '^[A-Za-z0-9][A-Za-z0-9 /-]{1,48}[A-Za-z0-9]$' THEN
    RAISE EXCEPTION 'Enter the document number as it is printed' USING ERRCODE = 'P0001';
  END IF;
  IF p_document_path IS NOT NULL THEN
    -- <user id>/<file>: the artist's own folder, nothing nested or relative.
    IF split_part(p_document_path, '/', 1) <> uid::text OR p_document_path LIKE '%/%/%'
       OR p_document_path LIKE '%..%' OR length(p_document_path) > 500 THEN
      RAISE EXCEPTION 'The document must be uploaded to your own folder' USING ERRCODE = 'P0001';
    END IF;
    IF to_regclass('storage.objects') IS NOT NULL THEN
      IF NOT EXISTS (SELECT 1 FROM storage.objects o WHERE o.bucket_id = 'kyc' AND o.name = p_document_path) THEN
        RAISE EXCEPTION 'Upload the document before submitting' USING ERRCODE = 'P0001';
      END IF;
    END IF;
  END IF;
  INSERT INTO public.kyc_submissions (artist_id, full_name, document_type, document_number, document_path)
  VALUES (uid, v_name, p_document_type, v_number, p_document_path)
  RETURNING * INTO sub;
  -- A renewal leaves the running approval in place until it is reviewed.
  UPDATE public.artist_profiles SET kyc_status = 'pending' WHERE id = uid AND kyc_status <> 'approved';
  PERFORM backline.log_activity(uid, 'kyc.submitted', 'kyc', sub.id::text, jsonb_build_object('document_type', p_document_type));
  RETURN jsonb_build_object('success', true, 'id', sub.id, 'status', sub.status);
END $$;

-- As in 0014, with the self-review refusal after the submission is locked.
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
