-- Counters follow valid streams and follows; KYC is decided by admins.
CREATE OR REPLACE FUNCTION backline.guard_artist_profile() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_user::text NOT IN ('anon', 'authenticated') THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' THEN
    NEW.track_count := 0;
    NEW.stream_count := 0;
    NEW.follower_count := 0;
    NEW.kyc_status := 'none';
    NEW.kyc_expiry_date := NULL;
    RETURN NEW;
  END IF;
  -- Hand-made counter updates (the spec's fallback increments) are ignored:
  -- the stream trigger keeps the true values.
  NEW.track_count := OLD.track_count;
  NEW.stream_count := OLD.stream_count;
  NEW.follower_count := OLD.follower_count;
  NEW.id := OLD.id;
  IF NOT public.is_admin() AND (NEW.kyc_status IS DISTINCT FROM OLD.kyc_status
      OR NEW.kyc_expiry_date IS DISTINCT FROM OLD.kyc_expiry_date) THEN
    RAISE EXCEPTION 'permission denied to change KYC status' USING ERRCODE = '42501';
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER guard_artist_profile BEFORE INSERT OR UPDATE ON public.artist_profiles
  FOR EACH ROW EXECUTE FUNCTION backline.guard_artist_profile();

REVOKE ALL ON FUNCTION backline.guard_artist_profile() FROM PUBLIC, anon, authenticated, service_role;
