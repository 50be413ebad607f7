-- Row-level security and grants, written for the spec's section 6.
--
-- Visitors (anon) and everyone signed in read public profiles and tracks.
-- Wallets, the ledger, payments, notifications, favorites and sessions are
-- readable by their owner (and admins, except notifications, which the spec
-- restricts to their owner). Invites are visible to their two parties. The
-- admin role sees and moderates everything else.
--
-- Money tables accept no writes from API roles at all: balances change only
-- inside the SECURITY DEFINER functions of 0004. Guard triggers keep the
-- columns an owner may not change (counters, verification, suspension,
-- sponsorship) out of reach of direct updates; they test current_user, so
-- they are plain (not SECURITY DEFINER) functions.

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

-- ---------------------------------------------------------------------------
-- public_profiles
CREATE POLICY "anyone can read public profiles" ON public.public_profiles
  FOR SELECT TO anon, authenticated USING (true);
CREATE POLICY "users can insert own profile" ON public.public_profiles
  FOR INSERT TO authenticated WITH CHECK (id = (SELECT auth.uid()));
CREATE POLICY "users can update own profile" ON public.public_profiles
  FOR UPDATE TO authenticated USING (id = (SELECT auth.uid())) WITH CHECK (id = (SELECT auth.uid()));
CREATE POLICY "admin can update any profile" ON public.public_profiles
  FOR UPDATE TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
CREATE POLICY "admin can delete profiles" ON public.public_profiles
  FOR DELETE TO authenticated USING ((SELECT public.is_admin()));
REVOKE INSERT, UPDATE, DELETE ON public.public_profiles FROM anon;

-- Owners edit their presentation; role, verification and suspension are the
-- platform's (payments, admins). Admin changes to role flow to user_roles.
CREATE FUNCTION backline.guard_public_profile() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_user::text NOT IN ('anon', 'authenticated') THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' THEN
    NEW.role := public.current_user_role();
    NEW.is_verified := false;
    NEW.verification_expires_at := NULL;
    NEW.is_suspended := false;
    NEW.suspended_reason := NULL;
    NEW.suspended_at := NULL;
    RETURN NEW;
  END IF;
  IF NEW.id IS DISTINCT FROM OLD.id OR NEW.created_at IS DISTINCT FROM OLD.created_at THEN
    RAISE EXCEPTION 'permission denied to change profile id' USING ERRCODE = '42501';
  END IF;
  IF public.is_admin() THEN
    IF NEW.is_suspended AND NOT OLD.is_suspended THEN
      NEW.suspended_at := now();
    ELSIF NOT NEW.is_suspended THEN
      NEW.suspended_at := NULL;
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.role IS DISTINCT FROM OLD.role
     OR NEW.is_verified IS DISTINCT FROM OLD.is_verified
     OR NEW.verification_expires_at IS DISTINCT FROM OLD.verification_expires_at
     OR NEW.is_suspended IS DISTINCT FROM OLD.is_suspended
     OR NEW.suspended_reason IS DISTINCT FROM OLD.suspended_reason
     OR NEW.suspended_at IS DISTINCT FROM OLD.suspended_at THEN
    RAISE EXCEPTION 'permission denied to change role, verification or suspension' USING ERRCODE = '42501';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER guard_public_profile BEFORE INSERT OR UPDATE ON public.public_profiles
  FOR EACH ROW EXECUTE FUNCTION backline.guard_public_profile();

-- Keeps user_roles and public_profiles.role in step after an admin change,
-- and records suspensions in the activity log.
CREATE FUNCTION backline.sync_profile_role() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF NEW.role IS NOT NULL AND NEW.role IS DISTINCT FROM OLD.role THEN
    UPDATE public.user_roles SET role = NEW.role WHERE user_id = NEW.id AND role IS DISTINCT FROM NEW.role;
  END IF;
  IF NEW.is_suspended IS DISTINCT FROM OLD.is_suspended THEN
    PERFORM backline.log_activity(auth.uid(), CASE WHEN NEW.is_suspended THEN 'user.suspend' ELSE 'user.unsuspend' END,
      'user', NEW.id::text, jsonb_build_object('reason', NEW.suspended_reason));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_profile_role AFTER UPDATE ON public.public_profiles
  FOR EACH ROW EXECUTE FUNCTION backline.sync_profile_role();

-- ---------------------------------------------------------------------------
-- user_roles: public (user counts per role), changed only by admins.
CREATE POLICY "anyone can read roles" ON public.user_roles
  FOR SELECT TO anon, authenticated USING (true);
CREATE POLICY "admin can insert roles" ON public.user_roles
  FOR INSERT TO authenticated WITH CHECK ((SELECT public.is_admin()));
CREATE POLICY "admin can update roles" ON public.user_roles
  FOR UPDATE TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
CREATE POLICY "admin can delete roles" ON public.user_roles
  FOR DELETE TO authenticated USING ((SELECT public.is_admin()));
REVOKE INSERT, UPDATE, DELETE ON public.user_roles FROM anon;

CREATE FUNCTION backline.sync_user_role() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  UPDATE public.public_profiles SET role = NEW.role WHERE id = NEW.user_id AND role IS DISTINCT FROM NEW.role;
  PERFORM backline.log_activity(auth.uid(), 'user.role_changed', 'user', NEW.user_id::text,
    jsonb_build_object('role', NEW.role));
  RETURN NULL;
END $$;
CREATE TRIGGER sync_user_role AFTER UPDATE OF role ON public.user_roles
  FOR EACH ROW EXECUTE FUNCTION backline.sync_user_role();

-- ---------------------------------------------------------------------------
-- Role profiles. Artists and sponsors are public; a fan profile holds only a
-- phone number, so only its owner and admins read it. A user may create the
-- role profile of their own role when it is missing (spec: "insert into
-- artist_profiles when missing").
CREATE POLICY "anyone can read artist profiles" ON public.artist_profiles
  FOR SELECT TO anon, authenticated USING (true);
CREATE POLICY "artists can insert own artist profile" ON public.artist_profiles
  FOR INSERT TO authenticated WITH CHECK (id = (SELECT auth.uid()) AND (SELECT public.current_user_role()) = 'artist');
CREATE POLICY "artists can update own artist profile" ON public.artist_profiles
  FOR UPDATE TO authenticated USING (id = (SELECT auth.uid())) WITH CHECK (id = (SELECT auth.uid()));
CREATE POLICY "admin can update artist profiles" ON public.artist_profiles
  FOR UPDATE TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
CREATE POLICY "admin can delete artist profiles" ON public.artist_profiles
  FOR DELETE TO authenticated USING ((SELECT public.is_admin()));

CREATE POLICY "anyone can read sponsor profiles" ON public.sponsor_profiles
  FOR SELECT TO anon, authenticated USING (true);
CREATE POLICY "sponsors can insert own sponsor profile" ON public.sponsor_profiles
  FOR INSERT TO authenticated WITH CHECK (id = (SELECT auth.uid()) AND (SELECT public.current_user_role()) = 'sponsor');
CREATE POLICY "sponsors can update own sponsor profile" ON public.sponsor_profiles
  FOR UPDATE TO authenticated USING (id = (SELECT auth.uid())) WITH CHECK (id = (SELECT auth.uid()));
CREATE POLICY "admin can update sponsor profiles" ON public.sponsor_profiles
  FOR UPDATE TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
CREATE POLICY "admin can delete sponsor profiles" ON public.sponsor_profiles
  FOR DELETE TO authenticated USING ((SELECT public.is_admin()));

CREATE POLICY "fans can read own fan profile" ON public.fan_profiles
  FOR SELECT TO authenticated USING (id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
CREATE POLICY "fans can insert own fan profile" ON public.fan_profiles
  FOR INSERT TO authenticated WITH CHECK (id = (SELECT auth.uid()) AND (SELECT public.current_user_role()) = 'fan');
CREATE POLICY "fans can update own fan profile" ON public.fan_profiles
  FOR UPDATE TO authenticated USING (id = (SELECT auth.uid())) WITH CHECK (id = (SELECT auth.uid()));
CREATE POLICY "admin can update fan profiles" ON public.fan_profiles
  FOR UPDATE TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
REVOKE INSERT, UPDATE, DELETE ON public.artist_profiles, public.sponsor_profiles, public.fan_profiles FROM anon;

-- Counters follow valid streams; KYC is decided by admins.
CREATE FUNCTION backline.guard_artist_profile() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_user::text NOT IN ('anon', 'authenticated') THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' THEN
    NEW.track_count := 0;
    NEW.stream_count := 0;
    NEW.kyc_status := 'none';
    NEW.kyc_expiry_date := NULL;
    RETURN NEW;
  END IF;
  -- Hand-made counter updates (the spec's fallback increments) are ignored:
  -- the stream trigger keeps the true values.
  NEW.track_count := OLD.track_count;
  NEW.stream_count := OLD.stream_count;
  NEW.id := OLD.id;
  IF NOT public.is_admin() AND (NEW.kyc_status IS DISTINCT FROM OLD.kyc_status
      OR NEW.kyc_expiry_date IS DISTINCT FROM OLD.kyc_expiry_date) THEN
    RAISE EXCEPTION 'permission denied to change KYC status' USING ERRCODE = '42501';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER guard_artist_profile BEFORE INSERT OR UPDATE ON public.artist_profiles
  FOR EACH ROW EXECUTE FUNCTION backline.guard_artist_profile();

-- ---------------------------------------------------------------------------
-- tracks
CREATE POLICY "anyone can read tracks" ON public.tracks
  FOR SELECT TO anon, authenticated USING (true);
CREATE POLICY "artists can insert own tracks" ON public.tracks
  FOR INSERT TO authenticated
  WITH CHECK (artist_id = (SELECT auth.uid()) AND (SELECT public.current_user_role()) = 'artist');
CREATE POLICY "artists can update own tracks" ON public.tracks
  FOR UPDATE TO authenticated USING (artist_id = (SELECT auth.uid())) WITH CHECK (artist_id = (SELECT auth.uid()));
CREATE POLICY "artists can delete own tracks" ON public.tracks
  FOR DELETE TO authenticated USING (artist_id = (SELECT auth.uid()));
CREATE POLICY "admin can update tracks" ON public.tracks
  FOR UPDATE TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
CREATE POLICY "admin can delete tracks" ON public.tracks
  FOR DELETE TO authenticated USING ((SELECT public.is_admin()));
REVOKE INSERT, UPDATE, DELETE ON public.tracks FROM anon;

-- The stream counter is the server's. A track becomes sponsored only by a
-- sponsor the artist has an accepted invite with, and a sponsored track
-- cannot be moved to another sponsor (spec: it cannot be pitched again).
CREATE FUNCTION backline.guard_track() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_user::text NOT IN ('anon', 'authenticated') THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' THEN
    NEW.streams := 0;
    NEW.created_at := now();
  ELSE
    NEW.streams := OLD.streams;
    NEW.created_at := OLD.created_at;
    NEW.id := OLD.id;
    IF NEW.artist_id IS DISTINCT FROM OLD.artist_id THEN
      RAISE EXCEPTION 'permission denied to change the artist of a track' USING ERRCODE = '42501';
    END IF;
  END IF;
  IF public.is_admin() THEN
    RETURN NEW;
  END IF;
  IF NEW.sponsor_id IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.sponsor_id IS DISTINCT FROM OLD.sponsor_id) THEN
    IF TG_OP = 'UPDATE' AND OLD.is_sponsored AND OLD.sponsor_id IS NOT NULL THEN
      RAISE EXCEPTION 'track is already sponsored' USING ERRCODE = '42501';
    END IF;
    IF NOT public.check_active_sponsorship_for_track(NEW.artist_id, NEW.sponsor_id, NEW.id) THEN
      RAISE EXCEPTION 'no accepted sponsorship between this artist and sponsor' USING ERRCODE = '42501';
    END IF;
  END IF;
  RETURN NEW;
END $$;

-- True when an accepted invite binds the pair, for the track or for no track.
CREATE FUNCTION public.check_active_sponsorship_for_track(p_artist_id uuid, p_sponsor_id uuid, p_track_id uuid)
RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT EXISTS (
    SELECT 1 FROM public.sponsor_artist_invites
    WHERE artist_id = p_artist_id AND sponsor_id = p_sponsor_id AND status = 'accepted'
      AND (track_id IS NULL OR track_id = p_track_id))
$$;
REVOKE EXECUTE ON FUNCTION public.check_active_sponsorship_for_track(uuid, uuid, uuid) FROM PUBLIC, anon;

CREATE TRIGGER guard_track BEFORE INSERT OR UPDATE ON public.tracks
  FOR EACH ROW EXECUTE FUNCTION backline.guard_track();

-- track_count follows the artist's tracks.
CREATE FUNCTION backline.count_tracks() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE public.artist_profiles SET track_count = (SELECT count(*) FROM public.tracks WHERE artist_id = NEW.artist_id)
    WHERE id = NEW.artist_id;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') AND (TG_OP = 'DELETE' OR OLD.artist_id IS DISTINCT FROM NEW.artist_id) THEN
    UPDATE public.artist_profiles SET track_count = (SELECT count(*) FROM public.tracks WHERE artist_id = OLD.artist_id)
    WHERE id = OLD.artist_id;
  END IF;
  IF TG_OP = 'INSERT' THEN
    PERFORM backline.log_activity(auth.uid(), 'track.created', 'track', NEW.id::text, jsonb_build_object('title', NEW.title));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM backline.log_activity(auth.uid(), 'track.deleted', 'track', OLD.id::text, jsonb_build_object('title', OLD.title));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER count_tracks AFTER INSERT OR DELETE OR UPDATE OF artist_id ON public.tracks
  FOR EACH ROW EXECUTE FUNCTION backline.count_tracks();

-- ---------------------------------------------------------------------------
-- streams: everyone may count them (charts, top fans, platform stats); the
-- address column holds a keyed hash, never an IP. Inserts come from
-- signed-in users with the spec's columns; a trigger (0003) decides every
-- server column.
CREATE POLICY "anyone can read streams" ON public.streams
  FOR SELECT TO anon, authenticated USING (true);
CREATE POLICY "users can insert own streams" ON public.streams
  FOR INSERT TO authenticated WITH CHECK (user_id = (SELECT auth.uid()));
REVOKE INSERT, UPDATE, DELETE ON public.streams FROM anon, authenticated;
GRANT INSERT (track_id, user_id, duration, is_valid, ip_address) ON public.streams TO authenticated;

CREATE POLICY "users can read own play sessions" ON public.play_sessions
  FOR SELECT TO authenticated USING (user_id = (SELECT auth.uid()));

-- ---------------------------------------------------------------------------
-- favorites: the owner's alone.
CREATE POLICY "users can read own favorites" ON public.favorites
  FOR SELECT TO authenticated USING (user_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
CREATE POLICY "users can insert own favorites" ON public.favorites
  FOR INSERT TO authenticated WITH CHECK (user_id = (SELECT auth.uid()));
CREATE POLICY "users can delete own favorites" ON public.favorites
  FOR DELETE TO authenticated USING (user_id = (SELECT auth.uid()));
REVOKE INSERT, UPDATE, DELETE ON public.favorites FROM anon;
REVOKE UPDATE ON public.favorites FROM authenticated;

-- ---------------------------------------------------------------------------
-- sponsor_artist_invites: visible to the two parties. The initiator creates
-- a pending invite; only the other party answers it, by setting status.
CREATE POLICY "parties can read invites" ON public.sponsor_artist_invites
  FOR SELECT TO authenticated
  USING (artist_id = (SELECT auth.uid()) OR sponsor_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
CREATE POLICY "sponsors can invite artists" ON public.sponsor_artist_invites
  FOR INSERT TO authenticated
  WITH CHECK (sponsor_id = (SELECT auth.uid()) AND (SELECT public.current_user_role()) = 'sponsor' AND status = 'pending');
CREATE POLICY "artists can pitch to sponsors" ON public.sponsor_artist_invites
  FOR INSERT TO authenticated
  WITH CHECK (artist_id = (SELECT auth.uid()) AND (SELECT public.current_user_role()) = 'artist' AND status = 'pending');
CREATE POLICY "invitees can answer invites" ON public.sponsor_artist_invites
  FOR UPDATE TO authenticated
  USING ((artist_id = (SELECT auth.uid()) AND initiated_by = 'sponsor')
      OR (sponsor_id = (SELECT auth.uid()) AND initiated_by = 'artist'))
  WITH CHECK ((artist_id = (SELECT auth.uid()) AND initiated_by = 'sponsor')
      OR (sponsor_id = (SELECT auth.uid()) AND initiated_by = 'artist'));
CREATE POLICY "initiators can withdraw pending invites" ON public.sponsor_artist_invites
  FOR DELETE TO authenticated
  USING (status = 'pending' AND ((sponsor_id = (SELECT auth.uid()) AND initiated_by = 'sponsor')
      OR (artist_id = (SELECT auth.uid()) AND initiated_by = 'artist')));
CREATE POLICY "admin can manage invites" ON public.sponsor_artist_invites
  FOR ALL TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
REVOKE INSERT, UPDATE, DELETE ON public.sponsor_artist_invites FROM anon;

-- ---------------------------------------------------------------------------
-- Money and account data: read-only for the owner (and admins).
CREATE POLICY "users can read own wallet" ON public.wallets
  FOR SELECT TO authenticated USING (user_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
CREATE POLICY "parties can read their transactions" ON public.transactions
  FOR SELECT TO authenticated
  USING (from_wallet = (SELECT auth.uid()) OR to_wallet = (SELECT auth.uid()) OR (SELECT public.is_admin()));
CREATE POLICY "admin can read settlements" ON public.stream_settlements
  FOR SELECT TO authenticated USING ((SELECT public.is_admin()));
CREATE POLICY "users can read own payments" ON public.payments
  FOR SELECT TO authenticated USING (user_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
CREATE POLICY "users can read own verifications" ON public.verifications
  FOR SELECT TO authenticated USING (user_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
CREATE POLICY "users can read own cashout requests" ON public.cashout_requests
  FOR SELECT TO authenticated USING (user_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
CREATE POLICY "users can read own sessions" ON public.user_sessions
  FOR SELECT TO authenticated USING (user_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
CREATE POLICY "users can read own stream limits" ON public.daily_stream_limits
  FOR SELECT TO authenticated USING (user_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
CREATE POLICY "users can read own device fingerprints" ON public.device_fingerprints
  FOR SELECT TO authenticated USING (user_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
CREATE POLICY "users can read own stream records" ON public.stream_records
  FOR SELECT TO authenticated USING (user_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));
CREATE POLICY "admin can read activity" ON public.activity_log
  FOR SELECT TO authenticated USING ((SELECT public.is_admin()));
REVOKE SELECT ON public.wallets, public.transactions, public.stream_settlements, public.payments,
  public.verifications, public.cashout_requests, public.user_sessions, public.daily_stream_limits,
  public.device_fingerprints, public.stream_records, public.activity_log, public.play_sessions
  FROM anon;

-- ---------------------------------------------------------------------------
-- notifications: every read, update and delete is the owner's own rows
-- (spec section 6). Owners may only flip is_read; rows are created by the
-- platform.
CREATE POLICY "users can read own notifications" ON public.notifications
  FOR SELECT TO authenticated USING (user_id = (SELECT auth.uid()));
CREATE POLICY "users can update own notifications" ON public.notifications
  FOR UPDATE TO authenticated USING (user_id = (SELECT auth.uid())) WITH CHECK (user_id = (SELECT auth.uid()));
CREATE POLICY "users can delete own notifications" ON public.notifications
  FOR DELETE TO authenticated USING (user_id = (SELECT auth.uid()));
REVOKE ALL ON public.notifications FROM anon;
REVOKE INSERT, UPDATE ON public.notifications FROM authenticated;
GRANT UPDATE (is_read) ON public.notifications TO authenticated;

-- ---------------------------------------------------------------------------
-- early_access_subscribers: anyone joins the waitlist; only admins read it.
CREATE POLICY "anyone can join the waitlist" ON public.early_access_subscribers
  FOR INSERT TO anon, authenticated WITH CHECK (true);
CREATE POLICY "admin can read the waitlist" ON public.early_access_subscribers
  FOR SELECT TO authenticated USING ((SELECT public.is_admin()));
CREATE POLICY "admin can delete from the waitlist" ON public.early_access_subscribers
  FOR DELETE TO authenticated USING ((SELECT public.is_admin()));
REVOKE ALL ON public.early_access_subscribers FROM anon, authenticated;
GRANT INSERT (email, role) ON public.early_access_subscribers TO anon, authenticated;
GRANT SELECT, DELETE ON public.early_access_subscribers TO authenticated;

-- ---------------------------------------------------------------------------
-- app_settings: public keys for everyone, the rest for admins, who edit them.
CREATE POLICY "anyone can read public settings" ON public.app_settings
  FOR SELECT TO anon, authenticated USING (is_public OR (SELECT public.is_admin()));
CREATE POLICY "admin can change settings" ON public.app_settings
  FOR UPDATE TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
CREATE POLICY "admin can add settings" ON public.app_settings
  FOR INSERT TO authenticated WITH CHECK ((SELECT public.is_admin()));
REVOKE INSERT, UPDATE, DELETE ON public.app_settings FROM anon;
REVOKE DELETE ON public.app_settings FROM authenticated;

-- Helpers: no API role calls backline.* directly.
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA backline FROM PUBLIC;
