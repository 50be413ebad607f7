-- Admin dashboard: track moderation.
--
-- A track is active, hidden or removed. Only active tracks are public: the
-- read policy shows hidden and removed tracks to their artist and to admins
-- only, so they leave every public list (home, charts, profiles, favorites)
-- with no change to the app's queries. A play of a track that is not active
-- cannot start, a stream of one is not valid ('Track is not available'),
-- and settlement pays nothing for it, even for a stream made before it was
-- hidden. Removing a track tells its artist why; hiding and removing are
-- undone by admin_unhide_track. Artists cannot change these columns.

ALTER TABLE public.tracks
  ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'hidden', 'removed')),
  ADD COLUMN moderation_reason text,
  ADD COLUMN moderated_at timestamptz,
  ADD COLUMN moderated_by uuid;

DROP POLICY "anyone can read tracks" ON public.tracks;
CREATE POLICY "anyone can read available tracks" ON public.tracks
  FOR SELECT TO anon, authenticated
  USING (status = 'active' OR artist_id = (SELECT auth.uid()) OR (SELECT public.is_admin()));

-- The moderation columns are the platform's: an artist's insert starts
-- active, and only admins change them.
CREATE FUNCTION backline.guard_track_moderation() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_user::text NOT IN ('anon', 'authenticated') THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' THEN
    NEW.status := 'active';
    NEW.moderation_reason := NULL;
    NEW.moderated_at := NULL;
    NEW.moderated_by := NULL;
    RETURN NEW;
  END IF;
  IF (NEW.status IS DISTINCT FROM OLD.status OR NEW.moderation_reason IS DISTINCT FROM OLD.moderation_reason
      OR NEW.moderated_at IS DISTINCT FROM OLD.moderated_at OR NEW.moderated_by IS DISTINCT FROM OLD.moderated_by)
     AND NOT public.is_admin() THEN
    RAISE EXCEPTION 'permission denied to change the moderation of a track' USING ERRCODE = '42501';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER guard_track_moderation BEFORE INSERT OR UPDATE ON public.tracks
  FOR EACH ROW EXECUTE FUNCTION backline.guard_track_moderation();

-- A play of a track that is not active does not start.
CREATE OR REPLACE FUNCTION public.start_play(p_track_id uuid) RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  v_id uuid;
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'not signed in' USING ERRCODE = '42501';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM public.tracks WHERE tracks.id = p_track_id AND tracks.status = 'active') THEN
    RAISE EXCEPTION 'Track not found' USING ERRCODE = 'P0002';
  END IF;
  PERFORM backline.lock_key('user:' || uid);
  UPDATE public.play_sessions SET closed_at = now() WHERE user_id = uid AND closed_at IS NULL;
  INSERT INTO public.play_sessions (user_id, track_id, ip_address)
  VALUES (uid, p_track_id, backline.request_ip())
  RETURNING play_sessions.id INTO v_id;
  RETURN v_id;
END $$;

-- Runs after stream_before_insert (triggers fire in name order): a stream of
-- a track hidden while it played does not count. The allowance its play used
-- stays used, as for any other refused stream.
CREATE FUNCTION backline.stream_track_available() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_setting('role', true) IN ('anon', 'authenticated') AND NEW.is_valid
     AND NOT EXISTS (SELECT 1 FROM public.tracks WHERE id = NEW.track_id AND status = 'active') THEN
    NEW.is_valid := false;
    NEW.invalid_reason := 'Track is not available';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER stream_track_available BEFORE INSERT ON public.streams
  FOR EACH ROW EXECUTE FUNCTION backline.stream_track_available();

-- Settlement as in 0006, plus the track's status after the sponsorship check.
CREATE OR REPLACE FUNCTION backline.settle_stream(p_uid uuid, p_artist_id uuid, p_sponsor_id uuid, p_reference text,
  p_amount numeric)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  amount numeric := backline.setting_num('stream_payment_amount');
  win interval := make_interval(mins => backline.setting_num('settlement_window_minutes')::int);
  dup_max int := backline.setting_num('duplicate_limit_per_ip')::int;
  dup_hours int := backline.setting_num('duplicate_window_hours')::int;
  per_hour int := backline.setting_num('velocity_per_hour')::int;
  per_day int := backline.setting_num('velocity_per_day')::int;
  s record;
  fraud jsonb;
  n int;
  sponsor_balance numeric;
  moved jsonb;
BEGIN
  -- 1. The listener must not be the artist.
  IF p_uid = p_artist_id THEN
    RETURN backline.settlement_failure('Artist cannot stream own tracks for payment');
  END IF;

  -- 2. The stream and its track. The row lock makes a stream payable once:
  -- a concurrent settlement that paid it first makes the recheck skip it.
  SELECT st.id, st.track_id, st.ip_address, t.artist_id, t.sponsor_id, t.is_sponsored, t.status INTO s
  FROM public.streams st JOIN public.tracks t ON t.id = st.track_id
  WHERE st.user_id = p_uid AND st.is_valid AND st.paid_reference IS NULL AND st.created_at > now() - win
  ORDER BY (t.artist_id = p_artist_id) DESC, (t.sponsor_id = p_sponsor_id AND t.is_sponsored) DESC, st.created_at DESC
  LIMIT 1
  FOR UPDATE OF st;
  IF NOT FOUND THEN
    RETURN backline.settlement_failure('Track not found');
  END IF;
  IF s.artist_id <> p_artist_id THEN
    RETURN backline.settlement_failure('Artist ID mismatch');
  END IF;
  IF NOT s.is_sponsored OR s.sponsor_id IS NULL THEN
    RETURN backline.settlement_failure('Track is not sponsored');
  END IF;
  -- A track an admin hid or removed earns nothing, even for a stream made
  -- before it was hidden.
  IF s.status <> 'active' THEN
    RETURN backline.settlement_failure('Track is not available');
  END IF;

  -- 3. Fraud: a check that cannot run pays nothing.
  BEGIN
    fraud := backline.assess_fraud(p_uid, s.track_id, backline.latest_fingerprint(p_uid), s.ip_address);
  EXCEPTION WHEN OTHERS THEN
    RETURN backline.settlement_failure('Fraud detection system error');
  END;
  IF fraud IS NULL THEN
    RETURN backline.settlement_failure('Fraud detection system error');
  END IF;
  IF fraud ->> 'recommendation' = 'block' THEN
    RETURN backline.settlement_failure(format('Stream blocked due to %s fraud risk: %s', fraud ->> 'risk_level',
      array_to_string(ARRAY(SELECT jsonb_array_elements_text(fraud -> 'fraud_reasons')), ', ')));
  END IF;

  -- 4. Duplicates: per IP, or per user when the address is unknown.
  IF s.ip_address IS NOT NULL THEN
    SELECT count(*) INTO n FROM public.streams
    WHERE track_id = s.track_id AND ip_address = s.ip_address AND is_valid
      AND created_at > now() - make_interval(hours => dup_hours);
  ELSE
    SELECT count(*) INTO n FROM public.streams
    WHERE track_id = s.track_id AND user_id = p_uid AND is_valid
      AND created_at > now() - make_interval(hours => dup_hours);
  END IF;
  IF n > dup_max THEN
    RETURN backline.settlement_failure(format(
      'This track has been streamed %s times from your location in %s hours (max: %s)', n, dup_hours, dup_max));
  END IF;

  -- 5. Velocity.
  SELECT count(*) INTO n FROM public.streams
  WHERE user_id = p_uid AND is_valid AND created_at > now() - interval '1 hour';
  IF n > per_hour THEN
    RETURN backline.settlement_failure(format('Too many streams (%s) in the last hour. Maximum allowed: %s/hour', n, per_hour));
  END IF;
  SELECT count(*) INTO n FROM public.streams
  WHERE user_id = p_uid AND is_valid AND created_at > now() - interval '24 hours';
  IF n > per_day THEN
    RETURN backline.settlement_failure(format('Too many streams (%s) in the last 24 hours. Maximum allowed: %s/day', n, per_day));
  END IF;

  -- 6. The relationship: this sponsor sponsors this track (an accepted invite
  -- for another track does not make someone else's sponsorship payable).
  IF s.sponsor_id <> p_sponsor_id OR NOT public.check_active_sponsorship(p_artist_id, p_sponsor_id) THEN
    RETURN backline.settlement_failure('No active sponsorship relationship found');
  END IF;

  -- 7. The sponsor's balance, read under the same locks transfer_funds takes
  -- (reference first, then both wallets by id), so the check holds.
  PERFORM backline.lock_key('ref:' || p_reference);
  PERFORM 1 FROM public.wallets WHERE id IN (p_artist_id, p_sponsor_id) ORDER BY id FOR UPDATE;
  SELECT balance INTO sponsor_balance FROM public.wallets WHERE id = p_sponsor_id AND kind = 'user';
  IF sponsor_balance IS NULL THEN
    RETURN backline.settlement_failure('Cannot verify sponsor wallet');
  END IF;
  IF sponsor_balance < amount THEN
    RETURN backline.settlement_failure(format('Insufficient sponsor balance. Has %s, needs %s',
      trim_scale(sponsor_balance), trim_scale(amount))) || '{"public_error": "Insufficient sponsor balance"}';
  END IF;

  moved := public.transfer_funds(p_sponsor_id, p_artist_id, amount, p_reference, 'sponsored_stream', s.id, s.track_id,
    jsonb_build_object('listener_id', p_uid));
  UPDATE public.streams SET paid_reference = p_reference WHERE id = s.id;
  PERFORM backline.log_activity(p_uid, 'payment.sponsored_stream', 'stream', s.id::text,
    jsonb_build_object('reference', p_reference, 'amount', amount, 'artist_id', p_artist_id, 'sponsor_id', p_sponsor_id));
  RETURN jsonb_build_object('success', true, 'error', NULL, 'transaction', jsonb_build_object(
    'amount', amount, 'artist_balance', moved -> 'to_balance', 'sponsor_balance', moved -> 'from_balance'));
END $$;

-- ---------------------------------------------------------------------------
-- Lists and actions.
CREATE INDEX tracks_created_id_idx ON public.tracks (created_at DESC, id DESC);
CREATE INDEX tracks_moderated_idx ON public.tracks (status, created_at DESC, id DESC) WHERE status <> 'active';
CREATE INDEX tracks_title_search_idx ON public.tracks USING gin (lower(title) extensions.gin_trgm_ops);
CREATE INDEX streams_track_idx ON public.streams (track_id, created_at DESC);
CREATE INDEX streams_rejected_track_idx ON public.streams (track_id) WHERE NOT is_valid;
CREATE INDEX activity_log_entity_idx ON public.activity_log (entity_type, entity_id, created_at DESC);

-- Tracks, newest first, by title search, status, artist and sponsorship,
-- with their valid and rejected stream counts.
CREATE FUNCTION public.admin_search_tracks(p_query text DEFAULT NULL, p_status text DEFAULT NULL,
  p_artist_id uuid DEFAULT NULL, p_sponsored boolean DEFAULT NULL, p_before_created timestamptz DEFAULT NULL,
  p_before_id uuid DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (id uuid, title text, artist_id uuid, artist_name text, sponsor_id uuid, sponsor_name text,
  is_sponsored boolean, status text, moderation_reason text, streams bigint, rejected_streams bigint, genre text,
  cover_url text, created_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  pat text := CASE WHEN coalesce(btrim(p_query), '') <> '' THEN backline.contains_pattern(p_query) END;
BEGIN
  PERFORM backline.admin_actor();
  RETURN QUERY
  WITH page AS (
    SELECT t.* FROM public.tracks t
    WHERE (pat IS NULL OR lower(t.title) LIKE pat)
      AND (p_status IS NULL OR t.status = p_status)
      AND (p_artist_id IS NULL OR t.artist_id = p_artist_id)
      AND (p_sponsored IS NULL OR t.is_sponsored = p_sponsored)
      AND (p_before_created IS NULL OR (t.created_at, t.id) < (p_before_created, coalesce(p_before_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')))
    ORDER BY t.created_at DESC, t.id DESC
    LIMIT backline.page_size(p_limit)
  )
  SELECT page.id, page.title, page.artist_id, backline.person_name(page.artist_id), page.sponsor_id,
    CASE WHEN page.sponsor_id IS NOT NULL THEN backline.person_name(page.sponsor_id) END,
    page.is_sponsored, page.status, page.moderation_reason, page.streams,
    (SELECT count(*) FROM public.streams s WHERE s.track_id = page.id AND NOT s.is_valid),
    page.genre, page.cover_url, page.created_at
  FROM page
  ORDER BY page.created_at DESC, page.id DESC;
END $$;

-- One track: its streams by verdict and reason, listeners, the addresses it
-- is streamed from (keyed hashes, never IPs), fraud flags raised on it,
-- recent streams and the admin actions about it.
CREATE FUNCTION public.admin_track_detail(p_track_id uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  t public.tracks;
BEGIN
  PERFORM backline.admin_actor();
  SELECT * INTO t FROM public.tracks WHERE id = p_track_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Track not found' USING ERRCODE = 'P0001';
  END IF;
  RETURN jsonb_build_object(
    'track', to_jsonb(t) || jsonb_build_object('artist_name', backline.person_name(t.artist_id),
      'sponsor_name', CASE WHEN t.sponsor_id IS NOT NULL THEN backline.person_name(t.sponsor_id) END),
    'streams', (SELECT jsonb_build_object('valid', count(*) FILTER (WHERE is_valid),
        'rejected', count(*) FILTER (WHERE NOT is_valid), 'paid', count(*) FILTER (WHERE paid_reference IS NOT NULL),
        'listeners', count(DISTINCT user_id) FILTER (WHERE is_valid),
        'last_24h', count(*) FILTER (WHERE created_at > now() - interval '24 hours'))
      FROM public.streams WHERE track_id = p_track_id),
    'rejections', coalesce((SELECT jsonb_agg(r ORDER BY r.count DESC) FROM (
        SELECT coalesce(invalid_reason, 'unknown') AS reason, count(*) AS count FROM public.streams
        WHERE track_id = p_track_id AND NOT is_valid GROUP BY 1 ORDER BY 2 DESC LIMIT 10) r), '[]'),
    'top_addresses', coalesce((SELECT jsonb_agg(a ORDER BY a.streams DESC) FROM (
        SELECT ip_address AS address_key, count(*) AS streams, count(DISTINCT user_id) AS accounts
        FROM public.streams WHERE track_id = p_track_id AND created_at > now() - interval '24 hours'
          AND ip_address IS NOT NULL
        GROUP BY 1 ORDER BY 2 DESC LIMIT 10) a), '[]'),
    'top_listeners', coalesce((SELECT jsonb_agg(l ORDER BY l.streams DESC) FROM (
        SELECT user_id, backline.person_name(user_id) AS name, count(*) AS streams FROM public.streams
        WHERE track_id = p_track_id AND is_valid GROUP BY user_id ORDER BY 3 DESC LIMIT 10) l), '[]'),
    'fraud_flags', coalesce((SELECT jsonb_agg(f ORDER BY f.created_at DESC) FROM (
        SELECT actor_id AS user_id, details, created_at FROM public.activity_log
        WHERE entity_type = 'track' AND entity_id = p_track_id::text AND action = 'fraud.detected'
        ORDER BY created_at DESC LIMIT 20) f), '[]'),
    'recent_streams', coalesce((SELECT jsonb_agg(s ORDER BY s.created_at DESC) FROM (
        SELECT id, user_id, backline.person_name(user_id) AS name, is_valid, invalid_reason, duration, created_at,
          paid_reference IS NOT NULL AS paid
        FROM public.streams WHERE track_id = p_track_id ORDER BY created_at DESC LIMIT 20) s), '[]'),
    'audit', coalesce((SELECT jsonb_agg(x ORDER BY x.id DESC) FROM (
        SELECT id, actor_id, backline.person_name(actor_id) AS actor_name, action, reason, created_at
        FROM public.admin_audit_log WHERE target_type IN ('track', 'tracks') AND target_id = p_track_id::text
        ORDER BY created_at DESC, id DESC LIMIT 20) x), '[]'));
END $$;

CREATE FUNCTION backline.track_state(p_track_id uuid) RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT jsonb_build_object('status', status, 'moderation_reason', moderation_reason, 'moderated_at', moderated_at,
    'moderated_by', moderated_by, 'is_sponsored', is_sponsored, 'sponsor_id', sponsor_id)
  FROM public.tracks WHERE id = p_track_id
$$;

-- Moves a track to a moderation status, audits it and tells the artist.
CREATE FUNCTION backline.moderate_track(p_track_id uuid, p_status text, p_reason text, p_action text,
  p_title text, p_message text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  -- Taking a track away needs a reason; giving it back does not.
  v_reason text := CASE WHEN p_status = 'active' THEN nullif(btrim(p_reason), '') ELSE backline.require_reason(p_reason) END;
  t public.tracks;
  before jsonb;
  after jsonb;
BEGIN
  SELECT * INTO t FROM public.tracks WHERE id = p_track_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Track not found' USING ERRCODE = 'P0001';
  END IF;
  IF t.status = p_status THEN
    RAISE EXCEPTION 'Track is already %', p_status USING ERRCODE = 'P0001';
  END IF;
  before := backline.track_state(p_track_id);
  UPDATE public.tracks SET status = p_status, moderation_reason = CASE WHEN p_status = 'active' THEN NULL ELSE v_reason END,
    moderated_at = now(), moderated_by = actor
  WHERE id = p_track_id;
  after := backline.track_state(p_track_id);
  PERFORM backline.audit(actor, p_action, 'track', p_track_id::text, v_reason, before, after);
  PERFORM backline.notify(t.artist_id, 'system_update', p_title, format(p_message, t.title, v_reason),
    jsonb_build_object('track_id', t.id, 'status', p_status, 'reason', v_reason));
  RETURN jsonb_build_object('success', true, 'track_id', t.id) || after;
END $$;

CREATE FUNCTION public.admin_hide_track(p_track_id uuid, p_reason text) RETURNS jsonb
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT backline.moderate_track(p_track_id, 'hidden', p_reason, 'track.hide',
    'Track hidden', 'Your track "%s" has been hidden from listeners: %s')
$$;

CREATE FUNCTION public.admin_remove_track(p_track_id uuid, p_reason text) RETURNS jsonb
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT backline.moderate_track(p_track_id, 'removed', p_reason, 'track.remove',
    'Track removed', 'Your track "%s" has been removed: %s')
$$;

CREATE FUNCTION public.admin_unhide_track(p_track_id uuid, p_reason text DEFAULT NULL) RETURNS jsonb
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT backline.moderate_track(p_track_id, 'active', p_reason, 'track.unhide',
    'Track restored', 'Your track "%s" is available to listeners again.')
$$;

REVOKE EXECUTE ON FUNCTION
  public.admin_search_tracks(text, text, uuid, boolean, timestamptz, uuid, integer),
  public.admin_track_detail(uuid),
  public.admin_hide_track(uuid, text),
  public.admin_remove_track(uuid, text),
  public.admin_unhide_track(uuid, text)
FROM PUBLIC, anon;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA backline FROM PUBLIC;
