-- The browser drives the product's flow, so nothing it says about a stream
-- is trusted: the player calls start_play when a track starts, and a stream
-- row inserted later is valid only if the server measured at least the
-- minimum listening time since then, the listener is a fan who is not the
-- track's artist, no critical fraud risk shows, the duplicate
-- (per track per IP) and velocity (per user) limits hold, and the daily
-- allowance has room. This trigger decides is_valid, ip_address, created_at
-- and user_id; counters follow valid streams exactly (count_valid_streams).
-- A suspended account's stream is refused, so it is neither recorded nor
-- counted (spec section 4).
--
-- Decides every server column of a stream inserted by an end user. Inserts
-- by the service role or the owner (imports, seed) keep what they give.
CREATE OR REPLACE FUNCTION backline.stream_before_insert() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  t record;
  ps public.play_sessions;
  lim public.daily_stream_limits;
  user_role public.app_role;
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
  -- A suspended account's stream is neither recorded nor counted (spec).
  PERFORM backline.require_active('User is suspended and cannot generate valid streams');
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

CREATE OR REPLACE TRIGGER stream_before_insert BEFORE INSERT ON public.streams
  FOR EACH ROW EXECUTE FUNCTION backline.stream_before_insert();

REVOKE ALL ON FUNCTION backline.stream_before_insert() FROM PUBLIC, anon, authenticated, service_role;
