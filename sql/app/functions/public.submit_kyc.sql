-- The caller's own KYC submission (artists only): refused while suspended,
-- while one waits for review (the artist's row is locked, so two at once get
-- the message) and while an approval runs outside its last
-- verification_renewal_days days; a NIN is 11 digits, other numbers letters,
-- digits, spaces, '-' and '/'; the document is an object the artist uploaded
-- into their own folder of the kyc bucket.
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
  PERFORM backline.require_active('Suspended accounts cannot submit KYC');
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

REVOKE ALL ON FUNCTION public.submit_kyc(text, text, text, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.submit_kyc(text, text, text, text) TO authenticated, service_role;
