-- Streams and the spec's section 7 procedures.
--
-- The browser drives the product's flow, so nothing it says about a stream
-- is trusted: the player calls start_play when a track starts, and a stream
-- row inserted later is valid only if the server measured at least the
-- minimum listening time since then, the listener is an unsuspended fan who
-- is not the track's artist, no critical fraud risk shows, the duplicate
-- (per track per IP) and velocity (per user) limits hold, and the daily
-- allowance has room. The trigger below decides is_valid, ip_address,
-- created_at and user_id; counters follow valid streams exactly.
--
-- Every procedure is SECURITY DEFINER with a fixed search_path and acts only
-- for the caller: a p_user_id naming someone else is refused (42501), and
-- p_ip_address arguments are accepted but ignored in favour of the address
-- the gateway saw.

-- The day a fan's allowance belongs to: Nigerian local date.
CREATE FUNCTION backline.today() RETURNS date
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT (now() AT TIME ZONE 'Africa/Lagos')::date
$$;

-- Refuses to act for anyone but the caller, unless the caller is the
-- service role, the owner, or an admin.
CREATE FUNCTION backline.require_self(p_user_id uuid) RETURNS uuid
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE uid uuid := auth.uid();
BEGIN
  IF current_setting('role', true) NOT IN ('anon', 'authenticated') THEN
    IF p_user_id IS NULL THEN
      RAISE EXCEPTION 'p_user_id is required' USING ERRCODE = '22023';
    END IF;
    RETURN p_user_id;
  END IF;
  IF uid IS NULL THEN
    RAISE EXCEPTION 'not signed in' USING ERRCODE = '42501';
  END IF;
  IF p_user_id IS NOT NULL AND p_user_id <> uid AND NOT public.is_admin() THEN
    RAISE EXCEPTION 'permission denied: can only act for yourself' USING ERRCODE = '42501';
  END IF;
  RETURN coalesce(p_user_id, uid);
END $$;

-- Per-user and per-(track, IP) transaction locks serialise the checks that
-- count streams, so concurrent inserts cannot both slip under a limit.
CREATE FUNCTION backline.lock_key(p_text text) RETURNS void
LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$
  SELECT pg_advisory_xact_lock(hashtextextended(p_text, 0))
$$;

-- The caller's allowance row for today, created on first use.
CREATE FUNCTION backline.daily_limit(p_user_id uuid) RETURNS public.daily_stream_limits
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE r public.daily_stream_limits;
BEGIN
  INSERT INTO public.daily_stream_limits (user_id, limit_date, daily_limit)
  VALUES (p_user_id, backline.today(), backline.setting_num('daily_stream_allowance')::int)
  ON CONFLICT (user_id, limit_date) DO NOTHING;
  SELECT * INTO r FROM public.daily_stream_limits WHERE user_id = p_user_id AND limit_date = backline.today();
  RETURN r;
END $$;

-- ---------------------------------------------------------------------------
-- Device trust (spec section 5), recomputed from the submitted details:
-- 100, minus 50 headless, 20 cookies disabled, 30 invalid screen resolution,
-- 15 no hardware-concurrency, 40 WebDriver, 45 automation framework; 0..100.
CREATE FUNCTION backline.device_trust_score(p_user_agent text, p_screen_resolution text, p_details jsonb)
RETURNS integer
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  d jsonb := coalesce(p_details, '{}');
  score int := 100;
  res text[];
BEGIN
  IF coalesce(p_user_agent, '') ~* 'headless' OR d ->> 'headless' = 'true' THEN
    score := score - 50;
  END IF;
  IF d ->> 'cookiesEnabled' = 'false' OR d ->> 'cookies_enabled' = 'false' THEN
    score := score - 20;
  END IF;
  res := regexp_match(coalesce(p_screen_resolution, ''), '^\s*(\d{1,5})\s*[xX×]\s*(\d{1,5})\s*$');
  IF res IS NULL OR res[1]::int < 100 OR res[2]::int < 100 THEN
    score := score - 30;
  END IF;
  IF NOT coalesce(jsonb_typeof(d -> 'hardwareConcurrency') = 'number' AND (d ->> 'hardwareConcurrency')::numeric > 0, false)
     AND NOT coalesce(jsonb_typeof(d -> 'hardware_concurrency') = 'number' AND (d ->> 'hardware_concurrency')::numeric > 0, false) THEN
    score := score - 15;
  END IF;
  IF d ->> 'webdriver' = 'true' THEN
    score := score - 40;
  END IF;
  IF coalesce(p_user_agent, '') ~* '(selenium|puppeteer|playwright|phantomjs|nightmare|cypress)'
     OR d ->> 'automation' = 'true' THEN
    score := score - 45;
  END IF;
  RETURN greatest(0, least(100, score));
END $$;

-- The fraud assessment used by detect_stream_fraud, the stream trigger and
-- the sponsored-payment check. Signals: the device's trust score, a device
-- shared by many accounts, many accounts streaming from one address, and the
-- user's own velocity. p_ip_key is the address as streams store it
-- (backline.ip_key). Risk: low < 25 <= medium < 55 <= high < 80 <= critical;
-- critical means block, high throttle, otherwise allow.
CREATE FUNCTION backline.assess_fraud(p_user_id uuid, p_track_id uuid, p_fingerprint text, p_ip_key text)
RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  trust int;
  suspicious_below int := backline.setting_num('device_trust_suspicious_below')::int;
  per_hour int := backline.setting_num('velocity_per_hour')::int;
  shared int := 0;
  ip_users int := 0;
  hour_count int := 0;
  risk int := 0;
  ip_risk int := 0;
  reasons text[] := '{}';
  level text;
BEGIN
  -- The device: the submitted fingerprint if this user registered it, else
  -- the user's most recent device, else unknown (70: unverified).
  SELECT trust_score INTO trust FROM public.device_fingerprints
  WHERE user_id = p_user_id AND (p_fingerprint IS NULL OR fingerprint = p_fingerprint)
  ORDER BY (fingerprint = p_fingerprint) DESC NULLS LAST, last_seen DESC LIMIT 1;
  trust := coalesce(trust, 70);
  IF trust < 20 THEN
    risk := risk + 85;
    reasons := reasons || format('Automated or headless device (trust score %s)', trust);
  ELSIF trust < suspicious_below THEN
    risk := risk + 35;
    reasons := reasons || format('Suspicious device (trust score %s)', trust);
  END IF;

  IF p_fingerprint IS NOT NULL THEN
    SELECT count(DISTINCT user_id) INTO shared FROM public.device_fingerprints
    WHERE fingerprint = p_fingerprint AND last_seen > now() - interval '30 days';
    IF shared >= 5 THEN
      risk := risk + 40;
      reasons := reasons || format('Device shared by %s accounts', shared);
    ELSIF shared >= 3 THEN
      risk := risk + 20;
      reasons := reasons || format('Device shared by %s accounts', shared);
    END IF;
  END IF;

  IF p_ip_key IS NULL THEN
    ip_risk := 20;
    risk := risk + 10;
    reasons := reasons || 'IP address unknown'::text;
  ELSE
    SELECT count(DISTINCT user_id) INTO ip_users FROM public.streams
    WHERE ip_address = p_ip_key AND is_valid AND created_at > now() - interval '24 hours';
    ip_risk := least(100, ip_users * 8);
    IF ip_users >= 10 THEN
      risk := risk + 35;
      reasons := reasons || format('%s accounts streaming from this IP in 24 hours', ip_users);
    ELSIF ip_users >= 5 THEN
      risk := risk + 15;
      reasons := reasons || format('%s accounts streaming from this IP in 24 hours', ip_users);
    END IF;
  END IF;

  SELECT count(*) INTO hour_count FROM public.streams
  WHERE user_id = p_user_id AND is_valid AND created_at > now() - interval '1 hour';
  IF hour_count >= per_hour THEN
    risk := risk + 30;
    reasons := reasons || format('Velocity limit exceeded: %s streams in last hour', hour_count);
  END IF;

  level := CASE WHEN risk >= 80 THEN 'critical' WHEN risk >= 55 THEN 'high' WHEN risk >= 25 THEN 'medium' ELSE 'low' END;
  RETURN jsonb_build_object(
    'fraud_detected', level IN ('high', 'critical'),
    'risk_level', level,
    'risk_score', least(risk, 100),
    'fraud_reasons', to_jsonb(reasons),
    'device_trust_score', trust,
    'ip_risk_score', ip_risk,
    'recommendation', CASE level WHEN 'critical' THEN 'block' WHEN 'high' THEN 'throttle' ELSE 'allow' END);
END $$;

-- The user's most recently seen device fingerprint (the stream trigger and
-- the payment check have no fingerprint argument).
CREATE FUNCTION backline.latest_fingerprint(p_user_id uuid) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT fingerprint FROM public.device_fingerprints WHERE user_id = p_user_id ORDER BY last_seen DESC LIMIT 1
$$;

-- ---------------------------------------------------------------------------
-- Plays and streams.

-- Called by the player when a track starts. Starting a play closes the
-- caller's other open plays: one listener plays one track at a time, so a
-- stream needs its own 30 s of wall-clock time.
CREATE FUNCTION public.start_play(p_track_id uuid) RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  v_id uuid;
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'not signed in' USING ERRCODE = '42501';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM public.tracks WHERE tracks.id = p_track_id) THEN
    RAISE EXCEPTION 'Track not found' USING ERRCODE = 'P0002';
  END IF;
  PERFORM backline.lock_key('user:' || uid);
  UPDATE public.play_sessions SET closed_at = now() WHERE user_id = uid AND closed_at IS NULL;
  INSERT INTO public.play_sessions (user_id, track_id, ip_address)
  VALUES (uid, p_track_id, backline.request_ip())
  RETURNING play_sessions.id INTO v_id;
  RETURN v_id;
END $$;

-- Decides every server column of a stream inserted by an end user. Inserts
-- by the service role or the owner (imports, seed) keep what they give.
CREATE FUNCTION backline.stream_before_insert() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  t record;
  ps public.play_sessions;
  lim public.daily_stream_limits;
  user_role public.app_role;
  suspended boolean;
  elapsed int;
  min_seconds int := backline.setting_num('min_stream_seconds')::int;
  grace numeric := backline.setting_num('play_clock_grace_seconds');
  exact numeric;
  dup_max int := backline.setting_num('duplicate_limit_per_ip')::int;
  dup_window interval := make_interval(hours => backline.setting_num('duplicate_window_hours')::int);
  per_hour int := backline.setting_num('velocity_per_hour')::int;
  per_day int := backline.setting_num('velocity_per_day')::int;
  fraud jsonb;
  n int;
  day_count int;
BEGIN
  IF current_setting('role', true) NOT IN ('anon', 'authenticated') THEN
    NEW.created_at := coalesce(NEW.created_at, now());
    RETURN NEW;
  END IF;
  IF uid IS NULL THEN
    RAISE EXCEPTION 'not signed in' USING ERRCODE = '42501';
  END IF;
  NEW.id := gen_random_uuid();
  NEW.user_id := uid;
  NEW.created_at := now();
  NEW.ip_address := backline.ip_key(backline.request_ip());
  NEW.is_valid := false;
  NEW.invalid_reason := NULL;
  NEW.paid_reference := NULL;
  NEW.play_session_id := NULL;
  NEW.duration := greatest(NEW.duration, 0);

  PERFORM backline.lock_key('user:' || uid);
  SELECT id, artist_id INTO t FROM public.tracks WHERE id = NEW.track_id;
  IF NOT FOUND THEN
    RETURN NEW; -- the foreign key refuses the row
  END IF;

  -- The play this stream comes from: the caller's open play of this track.
  SELECT * INTO ps FROM public.play_sessions
  WHERE user_id = uid AND track_id = NEW.track_id AND closed_at IS NULL
  ORDER BY started_at DESC LIMIT 1 FOR UPDATE;
  IF FOUND THEN
    exact := extract(epoch FROM now() - ps.started_at);
    elapsed := floor(exact)::int;
    NEW.play_session_id := ps.id;
    -- What the player reports, never more than the server measured.
    NEW.duration := least(coalesce(NEW.duration, elapsed), elapsed);
    UPDATE public.play_sessions SET closed_at = now(), stream_id = NEW.id WHERE id = ps.id;
  ELSE
    NEW.duration := 0;
  END IF;

  SELECT role INTO user_role FROM public.user_roles WHERE user_id = uid;
  SELECT is_suspended INTO suspended FROM public.public_profiles WHERE id = uid;
  IF coalesce(suspended, false) THEN
    NEW.invalid_reason := 'User is suspended and cannot generate valid streams';
    RETURN NEW;
  END IF;
  IF user_role IS DISTINCT FROM 'fan' OR t.artist_id = uid THEN
    NEW.invalid_reason := 'Stream not valid (not from fan or self-streaming)';
    RETURN NEW;
  END IF;
  IF ps.id IS NULL THEN
    NEW.invalid_reason := 'Stream not valid (no play of this track was started)';
    RETURN NEW;
  END IF;
  -- The play started when start_play reached the server, a moment after the
  -- player started; a small grace absorbs that delay.
  IF exact + grace < min_seconds THEN
    NEW.invalid_reason := format('Stream not valid (listened %s s, minimum %s s)', elapsed, min_seconds);
    RETURN NEW;
  END IF;

  -- A failing fraud check does not block counting (the payment check fails
  -- closed on its own); a critical risk does.
  BEGIN
    fraud := backline.assess_fraud(uid, NEW.track_id, backline.latest_fingerprint(uid), NEW.ip_address);
  EXCEPTION WHEN OTHERS THEN
    fraud := NULL;
  END;
  IF fraud ->> 'risk_level' = 'critical' THEN
    NEW.invalid_reason := 'Stream blocked due to critical fraud risk: '
      || array_to_string(ARRAY(SELECT jsonb_array_elements_text(fraud -> 'fraud_reasons')), ', ');
    RETURN NEW;
  END IF;

  IF NEW.ip_address IS NOT NULL THEN
    PERFORM backline.lock_key('track-ip:' || NEW.track_id || ':' || NEW.ip_address);
    SELECT count(*) INTO n FROM public.streams
    WHERE track_id = NEW.track_id AND ip_address = NEW.ip_address AND is_valid AND created_at > now() - dup_window;
    IF n >= dup_max THEN
      NEW.invalid_reason := 'Duplicate stream prevented - allowance type: ip';
      RETURN NEW;
    END IF;
  ELSE
    SELECT count(*) INTO n FROM public.streams
    WHERE track_id = NEW.track_id AND user_id = uid AND is_valid AND created_at > now() - dup_window;
    IF n >= dup_max THEN
      NEW.invalid_reason := 'Duplicate stream prevented - allowance type: user';
      RETURN NEW;
    END IF;
  END IF;

  SELECT count(*) FILTER (WHERE created_at > now() - interval '1 hour'), count(*) INTO n, day_count
  FROM public.streams WHERE user_id = uid AND is_valid AND created_at > now() - interval '24 hours';
  IF n >= per_hour THEN
    NEW.invalid_reason := format('Velocity limit exceeded: %s streams in last hour', n);
    RETURN NEW;
  END IF;
  IF day_count >= per_day THEN
    NEW.invalid_reason := format('Velocity limit exceeded: %s streams in last 24 hours', day_count);
    RETURN NEW;
  END IF;

  -- The daily allowance, consumed once per play (consume_stream may have
  -- consumed it already).
  IF NOT ps.allowance_consumed THEN
    lim := backline.daily_limit(uid);
    UPDATE public.daily_stream_limits SET streams_used = streams_used + 1
    WHERE user_id = uid AND limit_date = lim.limit_date AND streams_remaining > 0;
    IF NOT FOUND THEN
      NEW.invalid_reason := 'Daily stream limit reached!';
      RETURN NEW;
    END IF;
    UPDATE public.play_sessions SET allowance_consumed = true WHERE id = ps.id;
  END IF;

  NEW.is_valid := true;
  RETURN NEW;
END $$;
CREATE TRIGGER stream_before_insert BEFORE INSERT ON public.streams
  FOR EACH ROW EXECUTE FUNCTION backline.stream_before_insert();

-- Counters follow valid streams: one increment per valid stream, in the
-- same transaction, so they can never drift from the rows.
CREATE FUNCTION backline.stream_after_insert() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE artist uuid;
BEGIN
  IF NEW.is_valid THEN
    UPDATE public.tracks SET streams = streams + 1 WHERE id = NEW.track_id RETURNING artist_id INTO artist;
    UPDATE public.artist_profiles SET stream_count = stream_count + 1 WHERE id = artist;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER stream_after_insert AFTER INSERT ON public.streams
  FOR EACH ROW EXECUTE FUNCTION backline.stream_after_insert();

-- The spec's fallback increments. Calling them cannot inflate anything:
-- they recount valid streams. The row lock is taken before counting, so a
-- concurrent stream's increment is never lost.
CREATE FUNCTION public.increment_track_streams(p_track_id uuid) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE n bigint;
BEGIN
  PERFORM 1 FROM public.tracks WHERE id = p_track_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN 0;
  END IF;
  SELECT count(*) INTO n FROM public.streams WHERE track_id = p_track_id AND is_valid;
  UPDATE public.tracks SET streams = n WHERE id = p_track_id AND streams IS DISTINCT FROM n;
  RETURN n;
END $$;

CREATE FUNCTION public.increment_artist_streams(p_artist_id uuid) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE n bigint;
BEGIN
  PERFORM 1 FROM public.artist_profiles WHERE id = p_artist_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN 0;
  END IF;
  SELECT count(*) INTO n FROM public.streams s JOIN public.tracks t ON t.id = s.track_id
  WHERE t.artist_id = p_artist_id AND s.is_valid;
  UPDATE public.artist_profiles SET stream_count = n WHERE id = p_artist_id AND stream_count IS DISTINCT FROM n;
  RETURN n;
END $$;

-- ---------------------------------------------------------------------------
-- Daily allowance.
CREATE FUNCTION public.get_or_create_daily_stream_limit(p_user_id uuid)
RETURNS SETOF public.daily_stream_limits
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  RETURN NEXT backline.daily_limit(backline.require_self(p_user_id));
END $$;

CREATE FUNCTION public.has_remaining_streams(p_user_id uuid) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  RETURN (backline.daily_limit(backline.require_self(p_user_id))).streams_remaining > 0;
END $$;

-- Consumes one stream of today's allowance for the caller's current play,
-- once per play: calling it again for the same play returns true without
-- consuming more. Without an open play it only reports whether room is left
-- (the stream itself consumes then).
CREATE FUNCTION public.consume_stream(p_user_id uuid) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_self(p_user_id);
  ps public.play_sessions;
  lim public.daily_stream_limits;
BEGIN
  PERFORM backline.lock_key('user:' || uid);
  lim := backline.daily_limit(uid);
  SELECT * INTO ps FROM public.play_sessions
  WHERE user_id = uid AND closed_at IS NULL AND started_at > now() - interval '12 hours'
  ORDER BY started_at DESC LIMIT 1 FOR UPDATE;
  IF NOT FOUND THEN
    RETURN lim.streams_remaining > 0;
  END IF;
  IF ps.allowance_consumed THEN
    RETURN true;
  END IF;
  UPDATE public.daily_stream_limits SET streams_used = streams_used + 1
  WHERE user_id = uid AND limit_date = lim.limit_date AND streams_remaining > 0;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  UPDATE public.play_sessions SET allowance_consumed = true WHERE id = ps.id;
  RETURN true;
END $$;

-- ---------------------------------------------------------------------------
-- Suspension, sponsorship, fraud, duplicates, devices.
CREATE FUNCTION public.is_user_suspended(p_user_id uuid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT coalesce((SELECT is_suspended FROM public.public_profiles WHERE id = p_user_id), false)
$$;

-- Only an accepted invite, or a track the sponsor sponsors, is an active
-- relationship (spec section 4).
CREATE FUNCTION public.check_active_sponsorship(p_artist_id uuid, p_sponsor_id uuid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT EXISTS (SELECT 1 FROM public.sponsor_artist_invites
                 WHERE artist_id = p_artist_id AND sponsor_id = p_sponsor_id AND status = 'accepted')
      OR EXISTS (SELECT 1 FROM public.tracks
                 WHERE artist_id = p_artist_id AND sponsor_id = p_sponsor_id AND is_sponsored)
$$;

CREATE FUNCTION public.detect_stream_fraud(p_user_id uuid, p_track_id uuid, p_device_fingerprint text,
  p_ip_address text DEFAULT NULL, p_user_agent text DEFAULT NULL, p_session_id text DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_self(p_user_id);
  fp text := coalesce(nullif(p_device_fingerprint, ''), backline.latest_fingerprint(uid));
  result jsonb;
BEGIN
  result := backline.assess_fraud(uid, p_track_id, fp, backline.ip_key(backline.request_ip()));
  -- A user agent naming a headless or automated browser is itself a signal,
  -- even for a device never registered.
  IF p_user_agent IS NOT NULL AND backline.device_trust_score(p_user_agent, '1920x1080', '{"hardwareConcurrency": 1}') < 60
     AND result ->> 'risk_level' <> 'critical' THEN
    result := result || jsonb_build_object('fraud_detected', true, 'risk_level', 'critical', 'recommendation', 'block',
      'fraud_reasons', (result -> 'fraud_reasons') || to_jsonb('Automated or headless browser'::text));
  END IF;
  IF result ->> 'risk_level' IN ('high', 'critical') THEN
    PERFORM backline.log_activity(uid, 'fraud.detected', 'track', p_track_id::text, result);
  END IF;
  RETURN result;
END $$;

CREATE FUNCTION public.record_stream_for_duplicate_prevention(p_user_id uuid, p_track_id uuid,
  p_device_fingerprint text DEFAULT NULL, p_ip_address text DEFAULT NULL, p_session_id text DEFAULT NULL,
  p_stream_duration integer DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_self(p_user_id);
  v_id uuid;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM public.tracks WHERE tracks.id = p_track_id) THEN
    RAISE EXCEPTION 'Track not found' USING ERRCODE = 'P0002';
  END IF;
  INSERT INTO public.stream_records (user_id, track_id, device_fingerprint, session_id, ip_address, stream_duration)
  VALUES (uid, p_track_id, left(p_device_fingerprint, 500), left(p_session_id, 200), backline.request_ip(),
          greatest(coalesce(p_stream_duration, 0), 0))
  RETURNING stream_records.id INTO v_id;
  RETURN jsonb_build_object('success', true, 'id', v_id);
END $$;

CREATE FUNCTION public.update_device_fingerprint(p_user_id uuid, p_device_fingerprint text,
  p_user_agent text DEFAULT NULL, p_screen_resolution text DEFAULT NULL, p_timezone text DEFAULT NULL,
  p_language text DEFAULT NULL, p_platform text DEFAULT NULL, p_ip_address text DEFAULT NULL,
  p_device_details jsonb DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_self(p_user_id);
  score int := backline.device_trust_score(p_user_agent, p_screen_resolution, p_device_details);
BEGIN
  IF coalesce(btrim(p_device_fingerprint), '') = '' THEN
    RAISE EXCEPTION 'p_device_fingerprint is required' USING ERRCODE = '22023';
  END IF;
  INSERT INTO public.device_fingerprints AS f (user_id, fingerprint, user_agent, screen_resolution, timezone,
    language, platform, details, ip_address, trust_score)
  VALUES (uid, left(p_device_fingerprint, 500), left(p_user_agent, 1000), left(p_screen_resolution, 50),
    left(p_timezone, 100), left(p_language, 50), left(p_platform, 100), coalesce(p_device_details, '{}'),
    backline.request_ip(), score)
  ON CONFLICT (user_id, fingerprint) DO UPDATE SET
    user_agent = EXCLUDED.user_agent, screen_resolution = EXCLUDED.screen_resolution,
    timezone = EXCLUDED.timezone, language = EXCLUDED.language, platform = EXCLUDED.platform,
    details = EXCLUDED.details, ip_address = EXCLUDED.ip_address, trust_score = EXCLUDED.trust_score,
    last_seen = now(), seen_count = f.seen_count + 1;
  RETURN jsonb_build_object('device_trust_score', score,
    'is_suspicious', score < backline.setting_num('device_trust_suspicious_below'));
END $$;

-- Would one more stream of the track count? Per IP when the gateway knows
-- the address, else per user (the spec's server-side fallback).
CREATE FUNCTION public.check_duplicate_stream_enhanced(p_track_id uuid, p_user_id uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_self(p_user_id);
  ip text := backline.ip_key(backline.request_ip());
  max_n int := backline.setting_num('duplicate_limit_per_ip')::int;
  hours int := backline.setting_num('duplicate_window_hours')::int;
  by_ip int := 0;
  by_user int;
  kind text := CASE WHEN ip IS NULL THEN 'user' ELSE 'ip' END;
  n int;
BEGIN
  IF ip IS NOT NULL THEN
    SELECT count(*) INTO by_ip FROM public.streams
    WHERE track_id = p_track_id AND ip_address = ip AND is_valid AND created_at > now() - make_interval(hours => hours);
  END IF;
  SELECT count(*) INTO by_user FROM public.streams
  WHERE track_id = p_track_id AND user_id = uid AND is_valid AND created_at > now() - make_interval(hours => hours);
  n := CASE kind WHEN 'ip' THEN by_ip ELSE by_user END;
  RETURN jsonb_build_object(
    'is_duplicate', n >= max_n,
    'allowance_type', kind,
    'stream_count', n,
    'streams_from_ip', by_ip,
    'streams_by_user', by_user,
    'max_allowed', max_n,
    'window_hours', hours,
    'message', CASE WHEN n >= max_n THEN
      format('This track has been streamed %s times from your location in %s hours (max: %s)', n, hours, max_n) END);
END $$;

-- ---------------------------------------------------------------------------
-- Sessions and presence.
CREATE FUNCTION backline.expire_verifications() RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  UPDATE public.public_profiles SET is_verified = false
  WHERE is_verified AND verification_expires_at IS NOT NULL AND verification_expires_at <= now()
$$;

CREATE FUNCTION public.upsert_user_session(p_user_id uuid, p_session_id text, p_device_info text DEFAULT NULL,
  p_ip_address text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE uid uuid := backline.require_self(p_user_id);
BEGIN
  IF coalesce(btrim(p_session_id), '') = '' THEN
    RAISE EXCEPTION 'p_session_id is required' USING ERRCODE = '22023';
  END IF;
  INSERT INTO public.user_sessions (user_id, session_id, device_info, ip_address)
  VALUES (uid, left(p_session_id, 200), left(p_device_info, 1000), backline.request_ip())
  ON CONFLICT (user_id, session_id) DO UPDATE SET
    device_info = EXCLUDED.device_info, ip_address = EXCLUDED.ip_address, last_seen = now();
  -- Heartbeats are frequent and cheap: a good moment to drop lapsed badges.
  PERFORM backline.expire_verifications();
END $$;

CREATE FUNCTION public.remove_user_session(p_session_id text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF auth.uid() IS NULL THEN
    RAISE EXCEPTION 'not signed in' USING ERRCODE = '42501';
  END IF;
  DELETE FROM public.user_sessions WHERE user_id = auth.uid() AND session_id = p_session_id;
END $$;

CREATE FUNCTION public.get_online_users() RETURNS TABLE (user_id uuid, last_seen timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT s.user_id, max(s.last_seen)
  FROM public.user_sessions s
  WHERE s.last_seen > now() - make_interval(secs => backline.setting_num('online_window_seconds')::int)
  GROUP BY s.user_id
$$;

-- ---------------------------------------------------------------------------
-- Settings and public stats.
CREATE FUNCTION public.get_app_setting(setting_key text) RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE v jsonb;
BEGIN
  SELECT value INTO v FROM public.app_settings WHERE key = setting_key AND (is_public OR public.is_admin());
  IF v IS NULL THEN
    RETURN false;
  END IF;
  RETURN CASE jsonb_typeof(v)
    WHEN 'boolean' THEN v::text::boolean
    WHEN 'number' THEN (v::text)::numeric <> 0
    WHEN 'string' THEN lower(v #>> '{}') IN ('true', 't', '1', 'yes', 'on')
    ELSE false END;
END $$;

CREATE FUNCTION public.get_app_text_setting(setting_key text) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT coalesce((SELECT value #>> '{}' FROM public.app_settings
                   WHERE key = setting_key AND (is_public OR public.is_admin())), '')
$$;

-- Home-page figures anyone may see, without exposing wallets or streams'
-- private columns.
CREATE FUNCTION public.get_platform_stats() RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT jsonb_build_object(
    'total_users', (SELECT count(*) FROM public.user_roles),
    'fans', (SELECT count(*) FROM public.user_roles WHERE role = 'fan'),
    'artists', (SELECT count(*) FROM public.user_roles WHERE role = 'artist'),
    'sponsors', (SELECT count(*) FROM public.user_roles WHERE role = 'sponsor'),
    'admins', (SELECT count(*) FROM public.user_roles WHERE role = 'admin'),
    'total_tracks', (SELECT count(*) FROM public.tracks),
    'total_streams', (SELECT count(*) FROM public.streams WHERE is_valid),
    'sponsored_streams', (SELECT count(*) FROM public.streams s JOIN public.tracks t ON t.id = s.track_id
                          WHERE s.is_valid AND t.is_sponsored),
    'total_wallet_balance', (SELECT coalesce(sum(balance), 0) FROM public.wallets WHERE kind = 'user' AND currency = 'NGN'),
    'total_sponsor_payments', (SELECT coalesce(sum(amount), 0) FROM public.transactions WHERE kind = 'sponsored_stream'),
    'total_paid_out', (SELECT coalesce(sum(amount), 0) FROM public.cashout_requests WHERE status = 'completed'))
$$;

-- Top fans: ranked by valid streams, role fan only (spec section 9).
CREATE FUNCTION public.get_top_fans(p_limit integer DEFAULT 8)
RETURNS TABLE (user_id uuid, display_name text, username text, avatar_url text, stream_count bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT p.id, p.display_name, p.username, p.avatar_url, count(*) AS stream_count
  FROM public.streams s
  JOIN public.user_roles r ON r.user_id = s.user_id AND r.role = 'fan'
  JOIN public.public_profiles p ON p.id = s.user_id
  WHERE s.is_valid
  GROUP BY p.id
  ORDER BY stream_count DESC, p.id
  LIMIT least(greatest(coalesce(p_limit, 8), 1), 100)
$$;

-- ---------------------------------------------------------------------------
-- Who may call what. Visitors: settings and public stats only.
REVOKE EXECUTE ON FUNCTION
  public.start_play(uuid),
  public.increment_track_streams(uuid),
  public.increment_artist_streams(uuid),
  public.get_or_create_daily_stream_limit(uuid),
  public.has_remaining_streams(uuid),
  public.consume_stream(uuid),
  public.is_user_suspended(uuid),
  public.check_active_sponsorship(uuid, uuid),
  public.detect_stream_fraud(uuid, uuid, text, text, text, text),
  public.record_stream_for_duplicate_prevention(uuid, uuid, text, text, text, integer),
  public.update_device_fingerprint(uuid, text, text, text, text, text, text, text, jsonb),
  public.check_duplicate_stream_enhanced(uuid, uuid),
  public.upsert_user_session(uuid, text, text, text),
  public.remove_user_session(text),
  public.get_online_users(),
  public.current_user_role(),
  public.check_active_sponsorship_for_track(uuid, uuid, uuid)
FROM PUBLIC, anon;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA backline FROM PUBLIC;
