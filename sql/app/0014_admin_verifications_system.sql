-- Admin dashboard: verifications (paid badges and KYC) and system status.
--
-- KYC: an artist submits identity details with submit_kyc (and may upload a
-- document into the private 'kyc' bucket, folder <user id>/); the artist
-- profile's kyc_status becomes pending. An admin approves it with an expiry
-- date (kyc_status approved until then: has_valid_kyc) or rejects it with a
-- reason; the artist is told either way. Submissions are read by their
-- artist and admins, and written only by these functions.

CREATE TABLE public.kyc_submissions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  artist_id uuid NOT NULL REFERENCES public.artist_profiles (id) ON DELETE CASCADE,
  full_name text NOT NULL CHECK (length(btrim(full_name)) BETWEEN 2 AND 200),
  document_type text NOT NULL CHECK (document_type IN ('national_id', 'nin', 'passport', 'drivers_license', 'voters_card')),
  document_number text NOT NULL CHECK (length(btrim(document_number)) BETWEEN 3 AND 50),
  document_path text CHECK (document_path IS NULL OR length(document_path) <= 500),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  reason text,
  expires_at timestamptz,
  reviewed_by uuid,
  reviewed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (status <> 'approved' OR expires_at IS NOT NULL)
);
CREATE INDEX kyc_submissions_status_idx ON public.kyc_submissions (status, created_at, id);
CREATE INDEX kyc_submissions_created_idx ON public.kyc_submissions (created_at DESC, id DESC);
CREATE INDEX kyc_submissions_artist_idx ON public.kyc_submissions (artist_id, created_at DESC);
-- One open submission per artist.
CREATE UNIQUE INDEX kyc_submissions_pending_once ON public.kyc_submissions (artist_id) WHERE status = 'pending';

ALTER TABLE public.kyc_submissions ENABLE ROW LEVEL SECURITY;
CREATE POLICY "artists can read own kyc submissions" ON public.kyc_submissions
  FOR SELECT TO authenticated USING (artist_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
REVOKE ALL ON public.kyc_submissions FROM anon;
REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON public.kyc_submissions FROM authenticated;

CREATE FUNCTION public.submit_kyc(p_full_name text, p_document_type text, p_document_number text,
  p_document_path text DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  sub public.kyc_submissions;
BEGIN
  IF uid IS NULL OR public.current_user_role() IS DISTINCT FROM 'artist'
     OR NOT EXISTS (SELECT 1 FROM public.artist_profiles WHERE id = uid) THEN
    RAISE EXCEPTION 'Only artists can submit KYC' USING ERRCODE = 'P0001';
  END IF;
  IF coalesce(btrim(p_full_name), '') = '' OR coalesce(btrim(p_document_number), '') = ''
     OR p_document_type IS NULL OR p_document_type NOT IN ('national_id', 'nin', 'passport', 'drivers_license', 'voters_card') THEN
    RAISE EXCEPTION 'Enter your full name, a document type and its number' USING ERRCODE = 'P0001';
  END IF;
  -- A document must be in the artist's own folder of the kyc bucket.
  IF p_document_path IS NOT NULL AND split_part(p_document_path, '/', 1) <> uid::text THEN
    RAISE EXCEPTION 'The document must be uploaded to your own folder' USING ERRCODE = 'P0001';
  END IF;
  IF EXISTS (SELECT 1 FROM public.kyc_submissions WHERE artist_id = uid AND status = 'pending') THEN
    RAISE EXCEPTION 'Your KYC submission is already awaiting review' USING ERRCODE = 'P0001';
  END IF;
  INSERT INTO public.kyc_submissions (artist_id, full_name, document_type, document_number, document_path)
  VALUES (uid, btrim(p_full_name), p_document_type, btrim(p_document_number), p_document_path)
  RETURNING * INTO sub;
  UPDATE public.artist_profiles SET kyc_status = 'pending' WHERE id = uid AND kyc_status <> 'approved';
  PERFORM backline.log_activity(uid, 'kyc.submitted', 'kyc', sub.id::text, jsonb_build_object('document_type', p_document_type));
  RETURN jsonb_build_object('success', true, 'id', sub.id, 'status', sub.status);
END $$;

CREATE FUNCTION public.admin_list_kyc(p_status text DEFAULT 'pending', p_cursor_created timestamptz DEFAULT NULL,
  p_cursor_id uuid DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (id uuid, artist_id uuid, artist_name text, full_name text, document_type text, document_number text,
  document_path text, status text, reason text, expires_at timestamptz, reviewed_by_name text,
  reviewed_at timestamptz, kyc_status text, kyc_expiry_date timestamptz, created_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  n int := backline.page_size(p_limit);
BEGIN
  PERFORM backline.admin_actor();
  RETURN QUERY
  WITH page AS (
    -- The pending queue oldest first; decided ones newest first.
    (SELECT k.* FROM public.kyc_submissions k
     WHERE p_status = 'pending' AND k.status = 'pending'
       AND (p_cursor_created IS NULL OR (k.created_at, k.id) > (p_cursor_created, coalesce(p_cursor_id, '00000000-0000-0000-0000-000000000000')))
     ORDER BY k.created_at, k.id LIMIT n)
    UNION ALL
    (SELECT k.* FROM public.kyc_submissions k
     WHERE p_status IS DISTINCT FROM 'pending' AND (p_status IS NULL OR k.status = p_status)
       AND (p_cursor_created IS NULL OR (k.created_at, k.id) < (p_cursor_created, coalesce(p_cursor_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')))
     ORDER BY k.created_at DESC, k.id DESC LIMIT n)
  )
  SELECT page.id, page.artist_id, backline.person_name(page.artist_id), page.full_name, page.document_type,
    page.document_number, page.document_path, page.status, page.reason, page.expires_at,
    CASE WHEN page.reviewed_by IS NOT NULL THEN backline.person_name(page.reviewed_by) END, page.reviewed_at,
    a.kyc_status, a.kyc_expiry_date, page.created_at
  FROM page JOIN public.artist_profiles a ON a.id = page.artist_id
  ORDER BY CASE WHEN p_status = 'pending' THEN page.created_at END, CASE WHEN p_status = 'pending' THEN page.id END,
    page.created_at DESC, page.id DESC;
END $$;

-- Approve (with an expiry in the future) or reject (with a reason).
CREATE FUNCTION public.admin_review_kyc(p_submission_id uuid, p_approve boolean, p_expires_at timestamptz DEFAULT NULL,
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

-- Paid verifications, newest first, with their payment.
CREATE INDEX verifications_granted_idx ON public.verifications (granted_at DESC, id DESC);
CREATE FUNCTION public.admin_list_verifications(p_before_granted timestamptz DEFAULT NULL, p_before_id uuid DEFAULT NULL,
  p_limit integer DEFAULT 50)
RETURNS TABLE (id uuid, user_id uuid, user_name text, role public.app_role, source text, tx_ref text, provider text,
  total numeric, granted_at timestamptz, expires_at timestamptz, active boolean)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
BEGIN
  PERFORM backline.admin_actor();
  RETURN QUERY
  WITH page AS (
    SELECT v.* FROM public.verifications v
    WHERE p_before_granted IS NULL OR (v.granted_at, v.id) < (p_before_granted, coalesce(p_before_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY v.granted_at DESC, v.id DESC
    LIMIT backline.page_size(p_limit)
  )
  SELECT page.id, page.user_id, backline.person_name(page.user_id), p.role, page.source, pay.tx_ref, pay.provider,
    pay.total, page.granted_at, page.expires_at, page.expires_at > now()
  FROM page
  LEFT JOIN public.public_profiles p ON p.id = page.user_id
  LEFT JOIN public.payments pay ON pay.id = page.payment_id
  ORDER BY page.granted_at DESC, page.id DESC;
END $$;

-- The private kyc bucket: an artist uploads into their own folder; the
-- artist and admins read.
DO $$
BEGIN
  IF to_regclass('storage.buckets') IS NULL OR to_regclass('storage.objects') IS NULL THEN
    RAISE NOTICE 'storage schema not present: kyc bucket not created';
    RETURN;
  END IF;
  INSERT INTO storage.buckets (id, name, public, file_size_limit, allowed_mime_types) VALUES
    ('kyc', 'kyc', false, 10485760, ARRAY['image/jpeg', 'image/png', 'image/webp', 'application/pdf'])
  ON CONFLICT (id) DO NOTHING;
  EXECUTE $p$CREATE POLICY "artists can upload own kyc documents" ON storage.objects
    FOR INSERT TO authenticated
    WITH CHECK (bucket_id = 'kyc' AND (storage.foldername(name))[1] = (SELECT auth.uid())::text
      AND (SELECT public.current_user_role()) = 'artist')$p$;
  EXECUTE $p$CREATE POLICY "owners and admins can read kyc documents" ON storage.objects
    FOR SELECT TO authenticated
    USING (bucket_id = 'kyc' AND ((storage.foldername(name))[1] = (SELECT auth.uid())::text OR (SELECT public.is_admin())))$p$;
END $$;

-- ---------------------------------------------------------------------------
-- System status: the database (up, version, size, connections), the
-- migrations applied, queues waiting on people or providers, and the
-- replication slots realtime reads from (lag in bytes) once it runs. The
-- gateway's own figures (version, /metrics) are read by the app from the API.
CREATE FUNCTION public.admin_system_status() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  migrations jsonb;
  slots jsonb;
BEGIN
  PERFORM backline.admin_actor();
  IF to_regclass('basalt.schema_migrations') IS NOT NULL THEN
    EXECUTE $q$SELECT jsonb_object_agg(source, jsonb_build_object('version', version, 'name', name, 'applied_at', applied_at))
      FROM (SELECT DISTINCT ON (source) source, version, name, applied_at FROM basalt.schema_migrations
            ORDER BY source, length(version) DESC, version DESC) m$q$ INTO migrations;
  END IF;
  BEGIN
    SELECT coalesce(jsonb_agg(jsonb_build_object('name', slot_name, 'active', active, 'plugin', plugin,
        'lag_bytes', pg_wal_lsn_diff(pg_current_wal_lsn(), coalesce(confirmed_flush_lsn, restart_lsn))) ORDER BY slot_name), '[]')
      INTO slots FROM pg_replication_slots WHERE database = current_database();
  EXCEPTION WHEN OTHERS THEN
    slots := NULL; -- not readable here (a hot standby, or no privilege)
  END;
  RETURN jsonb_build_object(
    'database', jsonb_build_object('up', true, 'version', current_setting('server_version'),
      'size_bytes', pg_database_size(current_database()), 'started_at', pg_postmaster_start_time(),
      'connections', (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()),
      'max_connections', current_setting('max_connections')::int),
    'migrations', migrations,
    'payments_pending', (SELECT jsonb_build_object('count', count(*), 'oldest', min(created_at),
        'older_than_hour', count(*) FILTER (WHERE created_at < now() - interval '1 hour'))
      FROM public.payments WHERE status = 'pending'),
    'cashouts_pending', (SELECT jsonb_build_object('count', count(*), 'amount', coalesce(sum(amount), 0))
      FROM public.cashout_requests WHERE status = 'pending'),
    'kyc_pending', (SELECT count(*) FROM public.kyc_submissions WHERE status = 'pending'),
    'replication_slots', slots,
    'checked_at', now());
END $$;
CREATE INDEX payments_pending_idx ON public.payments (created_at) WHERE status = 'pending';

REVOKE EXECUTE ON FUNCTION
  public.submit_kyc(text, text, text, text),
  public.admin_list_kyc(text, timestamptz, uuid, integer),
  public.admin_review_kyc(uuid, boolean, timestamptz, text),
  public.admin_list_verifications(timestamptz, uuid, integer),
  public.admin_system_status()
FROM PUBLIC, anon;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA backline FROM PUBLIC;
