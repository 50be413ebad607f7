-- The rules behind the artist, sponsor and fan dashboards that the database
-- did not hold yet, so a client that lies changes nothing:
--
--   * cash-outs name a bank from the list, a 10-digit NUBAN and an account
--     name (the minimum and the balance were already checked, under the
--     wallet's row lock, so two requests at once cannot overdraw);
--   * a verification is bought once: no second purchase while one is valid,
--     except in its last verification_renewal_days days, and only by
--     artists and sponsors;
--   * a track's audio and cover are the artist's own uploads, its duration
--     is measured by the server (set_track_duration), never claimed, and its
--     media objects go with the row;
--   * a sponsor's wallet falling under the low-balance threshold notifies
--     the sponsor;
--   * fans' playlists (owner only), ordered, reordered in one call;
--   * the dashboards' figures, each first screen in one call, and the
--     statement and analytics aggregates, computed where the rows are.

INSERT INTO public.app_settings (key, value, description, is_public) VALUES
  ('verification_renewal_days', '30', 'Days before a verification expires from which it can be renewed', true)
ON CONFLICT (key) DO NOTHING;

-- ---------------------------------------------------------------------------
-- Banks a cash-out may go to (CBN codes). Public: the app's bank list.
CREATE TABLE public.banks (
  code text PRIMARY KEY,
  name text NOT NULL UNIQUE
);
ALTER TABLE public.banks ENABLE ROW LEVEL SECURITY;
CREATE POLICY "anyone can read banks" ON public.banks FOR SELECT TO anon, authenticated USING (true);
REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON public.banks FROM anon, authenticated;
INSERT INTO public.banks (code, name) VALUES
  ('044', 'Access Bank'), ('023', 'Citibank Nigeria'), ('050', 'Ecobank Nigeria'),
  ('070', 'Fidelity Bank'), ('011', 'First Bank of Nigeria'), ('214', 'First City Monument Bank'),
  ('00103', 'Globus Bank'), ('058', 'Guaranty Trust Bank'), ('030', 'Heritage Bank'),
  ('301', 'Jaiz Bank'), ('082', 'Keystone Bank'), ('50211', 'Kuda Microfinance Bank'),
  ('999992', 'OPay'), ('999991', 'PalmPay'), ('526', 'Parallex Bank'), ('076', 'Polaris Bank'),
  ('101', 'Providus Bank'), ('125', 'Rubies Microfinance Bank'), ('221', 'Stanbic IBTC Bank'),
  ('068', 'Standard Chartered Bank'), ('232', 'Sterling Bank'), ('100', 'Suntrust Bank'),
  ('302', 'TAJBank'), ('102', 'Titan Trust Bank'), ('032', 'Union Bank of Nigeria'),
  ('033', 'United Bank for Africa'), ('215', 'Unity Bank'), ('035', 'Wema Bank'), ('057', 'Zenith Bank')
ON CONFLICT (code) DO NOTHING;

-- ---------------------------------------------------------------------------
-- Cash-outs: as before (0004), plus the bank details. The amount checks come
-- first so their messages are unchanged; the wallet row lock serialises two
-- requests of one artist, and transfer_funds checks the balance again.
CREATE OR REPLACE FUNCTION public.request_cashout(p_amount numeric, p_bank_name text DEFAULT NULL,
  p_account_number text DEFAULT NULL, p_account_name text DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  min_amount numeric := backline.setting_num('min_cashout');
  balance numeric;
  req public.cashout_requests;
  moved jsonb;
  v_bank text := btrim(coalesce(p_bank_name, ''));
  v_number text := btrim(coalesce(p_account_number, ''));
  v_name text := btrim(regexp_replace(coalesce(p_account_name, ''), '\s+', ' ', 'g'));
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'Authentication required' USING ERRCODE = 'P0001';
  END IF;
  IF public.current_user_role() IS DISTINCT FROM 'artist' THEN
    RAISE EXCEPTION 'Only artists can request a cash-out' USING ERRCODE = 'P0001';
  END IF;
  IF p_amount IS NULL OR p_amount <> round(p_amount, 2) OR p_amount <= 0 THEN
    RAISE EXCEPTION 'Enter a valid amount' USING ERRCODE = 'P0001';
  END IF;
  IF p_amount < min_amount THEN
    RAISE EXCEPTION 'Minimum cash-out amount is ₦%', backline.naira(min_amount) USING ERRCODE = 'P0001';
  END IF;
  SELECT w.balance INTO balance FROM public.wallets w WHERE w.id = uid FOR UPDATE;
  IF balance IS NULL OR balance < p_amount THEN
    RAISE EXCEPTION 'Insufficient balance. Has ₦%, needs ₦%', backline.naira(coalesce(balance, 0)), backline.naira(p_amount)
      USING ERRCODE = 'P0001';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM public.banks WHERE name = v_bank) THEN
    RAISE EXCEPTION 'Choose your bank from the list' USING ERRCODE = 'P0001';
  END IF;
  IF v_number !~ '^[0-9]{10}$' THEN
    RAISE EXCEPTION 'Account number must be 10 digits' USING ERRCODE = 'P0001';
  END IF;
  IF length(v_name) < 3 OR length(v_name) > 100 THEN
    RAISE EXCEPTION 'Enter the account name' USING ERRCODE = 'P0001';
  END IF;
  INSERT INTO public.cashout_requests (user_id, amount, bank_name, account_number, account_name)
  VALUES (uid, p_amount, v_bank, v_number, v_name)
  RETURNING * INTO req;
  moved := public.transfer_funds(uid, '00000000-0000-0000-0000-00000000c001', p_amount, 'cashout-hold:' || req.id,
    'cashout_hold', NULL, NULL, jsonb_build_object('cashout_id', req.id));
  UPDATE public.cashout_requests SET hold_transaction_id = (moved ->> 'transaction_id')::uuid WHERE id = req.id;
  PERFORM backline.notify(uid, 'cashout_submitted', 'Cash-out Requested',
    format('Your cash-out request of ₦%s has been submitted and is awaiting review.', backline.naira(p_amount)),
    jsonb_build_object('amount', p_amount, 'cashout_id', req.id));
  PERFORM backline.log_activity(uid, 'cashout.requested', 'cashout', req.id::text, jsonb_build_object('amount', p_amount));
  RETURN jsonb_build_object('success', true, 'id', req.id, 'amount', p_amount, 'status', 'pending',
    'balance', moved -> 'from_balance');
END $$;

-- ---------------------------------------------------------------------------
-- Verification: one at a time. create_payment inserts the pending payment as
-- the caller, so this guard refuses the purchase before any checkout opens.
CREATE FUNCTION backline.guard_verification_payment() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  p public.public_profiles;
  renew_days int := backline.setting_num('verification_renewal_days')::int;
BEGIN
  IF NEW.purpose <> 'verification' THEN
    RETURN NEW;
  END IF;
  SELECT * INTO p FROM public.public_profiles WHERE id = NEW.user_id;
  IF p.role IS NULL OR p.role NOT IN ('artist', 'sponsor') THEN
    RAISE EXCEPTION 'Verification is for artists and sponsors' USING ERRCODE = 'P0001';
  END IF;
  IF p.is_verified AND p.verification_expires_at > now() + make_interval(days => renew_days) THEN
    RAISE EXCEPTION 'Your verification is active until %. You can renew it in its last % days.',
      to_char(p.verification_expires_at AT TIME ZONE 'Africa/Lagos', 'FMDD Mon YYYY'), renew_days
      USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER guard_verification_payment BEFORE INSERT ON public.payments
  FOR EACH ROW EXECUTE FUNCTION backline.guard_verification_payment();

-- ---------------------------------------------------------------------------
-- Track media. A public storage URL as the app stores it, split into bucket
-- and object name; NULL for anything else.
CREATE FUNCTION backline.media_object(p_url text, OUT bucket text, OUT name text)
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT m[1], m[2] FROM regexp_match(coalesce(p_url, ''),
    '^(?:https?://[^/]+)?/storage/v1/object/public/([a-z0-9_-]+)/([^?#]+)$') AS m
$$;

-- True when url names an object in bucket, inside owner's folder, that exists.
CREATE FUNCTION backline.own_media(p_url text, p_bucket text, p_owner uuid) RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE o record := backline.media_object(p_url);
BEGIN
  IF o.bucket IS DISTINCT FROM p_bucket OR split_part(o.name, '/', 1) <> p_owner::text
     OR o.name LIKE '%/%/%' OR o.name LIKE '%..%' THEN
    RETURN false;
  END IF;
  IF to_regclass('storage.objects') IS NULL THEN
    RETURN true;
  END IF;
  RETURN EXISTS (SELECT 1 FROM storage.objects WHERE bucket_id = o.bucket AND objects.name = o.name);
END $$;

-- An artist's track points at the artist's own uploads; its duration is the
-- server's measurement (NULL until set_track_duration runs), never the
-- client's claim. Admins and the platform's roles pass.
CREATE FUNCTION backline.guard_track_media() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_setting('role', true) NOT IN ('anon', 'authenticated') OR public.is_admin() THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' OR NEW.audio_url IS DISTINCT FROM OLD.audio_url THEN
    NEW.duration := NULL;
    IF NEW.audio_url IS NOT NULL AND NOT backline.own_media(NEW.audio_url, 'tracks', NEW.artist_id) THEN
      RAISE EXCEPTION 'Upload the audio to your own folder first' USING ERRCODE = 'P0001';
    END IF;
  ELSE
    NEW.duration := OLD.duration;
  END IF;
  IF NEW.cover_url IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.cover_url IS DISTINCT FROM OLD.cover_url)
     AND NOT backline.own_media(NEW.cover_url, 'covers', NEW.artist_id) THEN
    RAISE EXCEPTION 'Upload the cover to your own folder first' USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER guard_track_media BEFORE INSERT OR UPDATE ON public.tracks
  FOR EACH ROW EXECUTE FUNCTION backline.guard_track_media();

-- The measured duration, from the function that read the audio. Only when
-- the audio is still the one measured (an edit in between wins).
CREATE FUNCTION public.set_track_duration(p_track_id uuid, p_audio_url text, p_seconds integer) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF p_seconds IS NULL OR p_seconds < 1 OR p_seconds > 86400 THEN
    RAISE EXCEPTION 'duration out of range' USING ERRCODE = '22023';
  END IF;
  UPDATE public.tracks SET duration = p_seconds WHERE id = p_track_id AND audio_url = p_audio_url;
  RETURN FOUND;
END $$;
REVOKE EXECUTE ON FUNCTION public.set_track_duration(uuid, text, integer) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.set_track_duration(uuid, text, integer) TO service_role;

-- A track's media in the artist's folder goes with it: when the row is
-- deleted, or points elsewhere, the object rows no other track uses are
-- deleted; storage's sweep then removes the bytes (see storage/README.md).
CREATE FUNCTION backline.drop_track_media() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  url text;
  o record;
  prior text := current_setting('storage.allow_delete_query', true);
BEGIN
  IF to_regclass('storage.objects') IS NULL THEN
    RETURN NULL;
  END IF;
  FOREACH url IN ARRAY ARRAY[OLD.audio_url, OLD.cover_url] LOOP
    CONTINUE WHEN url IS NULL;
    CONTINUE WHEN TG_OP = 'UPDATE' AND url IN (coalesce(NEW.audio_url, ''), coalesce(NEW.cover_url, ''));
    o := backline.media_object(url);
    CONTINUE WHEN o.bucket IS NULL OR o.bucket NOT IN ('tracks', 'covers')
      OR split_part(o.name, '/', 1) <> OLD.artist_id::text;
    CONTINUE WHEN EXISTS (SELECT 1 FROM public.tracks WHERE audio_url = url OR cover_url = url);
    PERFORM set_config('storage.allow_delete_query', 'true', true);
    DELETE FROM storage.objects WHERE bucket_id = o.bucket AND name = o.name;
    PERFORM set_config('storage.allow_delete_query', coalesce(prior, 'false'), true);
  END LOOP;
  RETURN NULL;
END $$;
CREATE TRIGGER drop_track_media AFTER DELETE OR UPDATE OF audio_url, cover_url ON public.tracks
  FOR EACH ROW EXECUTE FUNCTION backline.drop_track_media();

-- ---------------------------------------------------------------------------
-- Low balance: a sponsor's wallet crossing under the threshold tells them.
CREATE FUNCTION backline.low_balance_notice() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE threshold numeric := backline.setting_num('low_balance_threshold');
BEGIN
  IF NEW.user_id IS NOT NULL AND OLD.balance >= threshold AND NEW.balance < threshold
     AND EXISTS (SELECT 1 FROM public.user_roles WHERE user_id = NEW.user_id AND role = 'sponsor') THEN
    PERFORM backline.notify(NEW.user_id, 'system_update', 'Low wallet balance',
      format('Your wallet balance is ₦%s, under ₦%s. Top up to keep paying for streams.',
        backline.naira(NEW.balance), backline.naira(threshold)),
      jsonb_build_object('balance', NEW.balance, 'threshold', threshold, 'kind', 'low_balance'));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER low_balance_notice AFTER UPDATE OF balance ON public.wallets
  FOR EACH ROW WHEN (NEW.balance < OLD.balance) EXECUTE FUNCTION backline.low_balance_notice();

-- ---------------------------------------------------------------------------
-- Playlists: a fan's own, read and changed by the owner alone.
CREATE TABLE public.playlists (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX playlists_user_idx ON public.playlists (user_id, created_at);
CREATE TRIGGER touch_updated_at BEFORE UPDATE ON public.playlists
  FOR EACH ROW EXECUTE FUNCTION backline.touch_updated_at();

CREATE TABLE public.playlist_tracks (
  playlist_id uuid NOT NULL REFERENCES public.playlists (id) ON DELETE CASCADE,
  track_id uuid NOT NULL REFERENCES public.tracks (id) ON DELETE CASCADE,
  position integer NOT NULL DEFAULT 0,
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (playlist_id, track_id)
);
CREATE INDEX playlist_tracks_order_idx ON public.playlist_tracks (playlist_id, position);

ALTER TABLE public.playlists ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.playlist_tracks ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON public.playlists, public.playlist_tracks FROM anon;
REVOKE TRUNCATE, REFERENCES, TRIGGER ON public.playlists, public.playlist_tracks FROM authenticated;
-- The owner is the caller, always.
REVOKE UPDATE ON public.playlists FROM authenticated;
GRANT UPDATE (name) ON public.playlists TO authenticated;
REVOKE UPDATE ON public.playlist_tracks FROM authenticated;
GRANT UPDATE (position) ON public.playlist_tracks TO authenticated;

CREATE POLICY "users can read own playlists" ON public.playlists
  FOR SELECT TO authenticated USING (user_id = (SELECT auth.uid()));
CREATE POLICY "users can create own playlists" ON public.playlists
  FOR INSERT TO authenticated WITH CHECK (user_id = (SELECT auth.uid()));
CREATE POLICY "users can rename own playlists" ON public.playlists
  FOR UPDATE TO authenticated USING (user_id = (SELECT auth.uid())) WITH CHECK (user_id = (SELECT auth.uid()));
CREATE POLICY "users can delete own playlists" ON public.playlists
  FOR DELETE TO authenticated USING (user_id = (SELECT auth.uid()));

-- A playlist's tracks are its owner's: the playlists policy decides.
CREATE POLICY "users can read own playlist tracks" ON public.playlist_tracks
  FOR SELECT TO authenticated
  USING (EXISTS (SELECT 1 FROM public.playlists p WHERE p.id = playlist_id AND p.user_id = (SELECT auth.uid())));
CREATE POLICY "users can add to own playlists" ON public.playlist_tracks
  FOR INSERT TO authenticated
  WITH CHECK (EXISTS (SELECT 1 FROM public.playlists p WHERE p.id = playlist_id AND p.user_id = (SELECT auth.uid())));
CREATE POLICY "users can reorder own playlists" ON public.playlist_tracks
  FOR UPDATE TO authenticated
  USING (EXISTS (SELECT 1 FROM public.playlists p WHERE p.id = playlist_id AND p.user_id = (SELECT auth.uid())))
  WITH CHECK (EXISTS (SELECT 1 FROM public.playlists p WHERE p.id = playlist_id AND p.user_id = (SELECT auth.uid())));
CREATE POLICY "users can remove from own playlists" ON public.playlist_tracks
  FOR DELETE TO authenticated
  USING (EXISTS (SELECT 1 FROM public.playlists p WHERE p.id = playlist_id AND p.user_id = (SELECT auth.uid())));

-- A track added without a position goes last.
CREATE FUNCTION backline.playlist_track_position() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF NEW.position IS NULL OR NEW.position <= 0 THEN
    SELECT coalesce(max(position), 0) + 1 INTO NEW.position FROM public.playlist_tracks WHERE playlist_id = NEW.playlist_id;
  END IF;
  NEW.added_at := now();
  RETURN NEW;
END $$;
CREATE TRIGGER playlist_track_position BEFORE INSERT ON public.playlist_tracks
  FOR EACH ROW EXECUTE FUNCTION backline.playlist_track_position();

-- Reorders a playlist in one statement: p_track_ids in the new order, which
-- must be exactly the playlist's tracks.
CREATE FUNCTION public.reorder_playlist(p_playlist_id uuid, p_track_ids uuid[]) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  PERFORM 1 FROM public.playlists WHERE id = p_playlist_id AND user_id = auth.uid() FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Playlist not found' USING ERRCODE = 'P0001';
  END IF;
  IF (SELECT array_agg(track_id ORDER BY track_id) FROM public.playlist_tracks WHERE playlist_id = p_playlist_id)
     IS DISTINCT FROM (SELECT array_agg(DISTINCT t ORDER BY t) FROM unnest(p_track_ids) t)
     OR cardinality(p_track_ids) <> (SELECT count(*) FROM public.playlist_tracks WHERE playlist_id = p_playlist_id) THEN
    RAISE EXCEPTION 'The new order must list every track of the playlist once' USING ERRCODE = 'P0001';
  END IF;
  UPDATE public.playlist_tracks pt SET position = o.n
  FROM unnest(p_track_ids) WITH ORDINALITY AS o(track_id, n)
  WHERE pt.playlist_id = p_playlist_id AND pt.track_id = o.track_id;
  UPDATE public.playlists SET updated_at = now() WHERE id = p_playlist_id;
END $$;
REVOKE EXECUTE ON FUNCTION public.reorder_playlist(uuid, uuid[]) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.reorder_playlist(uuid, uuid[]) TO authenticated;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA backline FROM PUBLIC;
