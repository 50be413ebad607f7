-- Admin dashboard: verifications (paid badges and KYC) and system status.
--
-- KYC: an artist submits identity details with submit_kyc (and may upload a
-- document into the private 'kyc' bucket, folder <user id>/); the artist
-- profile's kyc_status becomes pending. An admin approves it with an expiry
-- date (kyc_status approved until then: has_valid_kyc) or rejects it with a
-- reason; the artist is told either way. Submissions are read by their
-- artist and admins, and written only by these functions.
--
-- Its functions (with their triggers) and policies moved to functions/ and
-- policies/, one file each. A database that applied it before keeps its record:
-- replaces: 810082c44e941edbc42e3be23fa4f5b5c8b5cc0f8731069aa6b016d2fe6cac9b

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
REVOKE ALL ON public.kyc_submissions FROM anon;
REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON public.kyc_submissions FROM authenticated;

-- Paid verifications, newest first, with their payment.
CREATE INDEX verifications_granted_idx ON public.verifications (granted_at DESC, id DESC);

-- The private kyc bucket: an artist uploads into their own folder; the
-- artist and admins read (policies/storage.objects.sql).
DO $$
BEGIN
  IF to_regclass('storage.buckets') IS NULL OR to_regclass('storage.objects') IS NULL THEN
    RAISE NOTICE 'storage schema not present: kyc bucket not created';
    RETURN;
  END IF;
  INSERT INTO storage.buckets (id, name, public, file_size_limit, allowed_mime_types) VALUES
    ('kyc', 'kyc', false, 10485760, ARRAY['image/jpeg', 'image/png', 'image/webp', 'application/pdf'])
  ON CONFLICT (id) DO NOTHING;
END $$;

-- System status: pending payments, oldest first.
CREATE INDEX payments_pending_idx ON public.payments (created_at) WHERE status = 'pending';
