-- Row-level security and grants, written for the spec's section 6. The
-- policies themselves are in policies/, one file per table; the guard
-- triggers (columns an owner may not change: counters, verification,
-- suspension, sponsorship) are in functions/ with their functions.
--
-- Money tables accept no writes from API roles at all: balances change only
-- inside SECURITY DEFINER functions.
--
-- Its functions (with their triggers) and policies moved to functions/ and
-- policies/, one file each. A database that applied it before keeps its record:
-- replaces: ca18049ff5f3d3b8a7bc20fa16ea67f8748fcb6a6fc8db9411eea82dde6c92f4

DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' LOOP
    EXECUTE format('ALTER TABLE public.%I ENABLE ROW LEVEL SECURITY', t);
    -- TRUNCATE ignores RLS; API roles never need it.
    EXECUTE format('REVOKE TRUNCATE, REFERENCES, TRIGGER ON public.%I FROM anon, authenticated', t);
  END LOOP;
END $$;

-- Tables only SECURITY DEFINER functions write.
REVOKE INSERT, UPDATE, DELETE ON public.wallets, public.transactions, public.stream_settlements,
  public.payments, public.verifications, public.cashout_requests, public.user_sessions,
  public.daily_stream_limits, public.device_fingerprints, public.stream_records, public.activity_log,
  public.play_sessions
  FROM anon, authenticated;

-- Visitors write nothing but the waitlist.
REVOKE INSERT, UPDATE, DELETE ON public.public_profiles, public.user_roles, public.artist_profiles,
  public.sponsor_profiles, public.fan_profiles, public.tracks, public.favorites, public.sponsor_artist_invites,
  public.app_settings
  FROM anon;

-- streams: inserts come from signed-in users with the spec's columns; a
-- trigger decides every server column.
REVOKE INSERT, UPDATE, DELETE ON public.streams FROM anon, authenticated;
GRANT INSERT (track_id, user_id, duration, is_valid, ip_address) ON public.streams TO authenticated;

-- favorites are added and removed, never changed.
REVOKE UPDATE ON public.favorites FROM authenticated;

-- Money and account data: read-only for the owner (and admins).
REVOKE SELECT ON public.wallets, public.transactions, public.stream_settlements, public.payments,
  public.verifications, public.cashout_requests, public.user_sessions, public.daily_stream_limits,
  public.device_fingerprints, public.stream_records, public.activity_log, public.play_sessions
  FROM anon;

-- notifications are created by the platform; owners may only flip is_read.
REVOKE ALL ON public.notifications FROM anon;
REVOKE INSERT, UPDATE ON public.notifications FROM authenticated;
GRANT UPDATE (is_read) ON public.notifications TO authenticated;

-- early_access_subscribers: anyone joins the waitlist; only admins read it.
REVOKE ALL ON public.early_access_subscribers FROM anon, authenticated;
GRANT INSERT (email, role) ON public.early_access_subscribers TO anon, authenticated;
GRANT SELECT, DELETE ON public.early_access_subscribers TO authenticated;

-- app_settings: admins edit them, nobody deletes one.
REVOKE DELETE ON public.app_settings FROM authenticated;
