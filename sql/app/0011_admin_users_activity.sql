-- Admin dashboard: users and the activity feed.
--
-- Every list here is keyset-paginated: the caller passes the sort key of the
-- last row it has (p_before_*), never an offset, and each list walks an index
-- in its sort order, so page 1,000 costs what page 1 costs. Limits are
-- clamped to 1..200. Optional filters are written `p_x IS NULL OR col =
-- p_x`; a generic (cached) plan cannot pick an index for that, so the list
-- functions plan every call with its arguments (plan_cache_mode =
-- force_custom_plan), where the planner folds the test away.

CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA extensions;

-- A LIKE pattern matching p_text anywhere, with the caller's % and _ taken
-- literally.
CREATE FUNCTION backline.contains_pattern(p_text text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT '%' || replace(replace(replace(lower(btrim(p_text)), '\', '\\'), '%', '\%'), '_', '\_') || '%'
$$;

-- A person's name as lists show it (a sponsor's company, an artist's name,
-- else the profile's): backline.display_name's rule, without SECURITY
-- DEFINER or a SET clause, so a list of 50 rows pays for 50 index lookups
-- and not for 50 function-call context switches. Only ever called from the
-- SECURITY DEFINER admin functions, whose rights it runs with.
CREATE FUNCTION backline.person_name(p_id uuid) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    (SELECT coalesce(nullif(company_name, ''), nullif(name, '')) FROM public.sponsor_profiles WHERE id = p_id),
    (SELECT nullif(name, '') FROM public.artist_profiles WHERE id = p_id),
    (SELECT coalesce(nullif(display_name, ''), username) FROM public.public_profiles WHERE id = p_id),
    'Someone')
$$;

CREATE FUNCTION backline.page_size(p_limit integer) RETURNS integer
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT least(greatest(coalesce(p_limit, 50), 1), 200)
$$;

-- What admins search users by: username, display name, name and e-mail in
-- one lower-cased text per user, kept next to the profile's creation time.
-- The e-mail lives in auth.users, so no single profile index could serve a
-- search over both; with one table the planner chooses per search between
-- walking the newest-first index (a broad text such as "gmail") and the
-- trigram index (a rare one). Triggers keep it current.
CREATE TABLE backline.user_search (
  id uuid PRIMARY KEY REFERENCES public.public_profiles (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  doc text NOT NULL
);
CREATE INDEX user_search_created_idx ON backline.user_search (created_at DESC, id DESC);
CREATE INDEX user_search_doc_idx ON backline.user_search USING gin (doc extensions.gin_trgm_ops);

CREATE FUNCTION backline.refresh_user_search(p_id uuid) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  INSERT INTO backline.user_search (id, created_at, doc)
  SELECT p.id, p.created_at, lower(concat_ws(' ', p.username, p.display_name, p.name, u.email))
  FROM public.public_profiles p LEFT JOIN auth.users u ON u.id = p.id WHERE p.id = p_id
  ON CONFLICT (id) DO UPDATE SET created_at = EXCLUDED.created_at, doc = EXCLUDED.doc
$$;

CREATE FUNCTION backline.user_search_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  PERFORM backline.refresh_user_search(NEW.id);
  RETURN NULL;
END $$;
CREATE TRIGGER user_search AFTER INSERT OR UPDATE OF username, display_name, name, created_at ON public.public_profiles
  FOR EACH ROW EXECUTE FUNCTION backline.user_search_changed();
CREATE TRIGGER backline_user_search AFTER UPDATE OF email ON auth.users
  FOR EACH ROW EXECUTE FUNCTION backline.user_search_changed();

INSERT INTO backline.user_search (id, created_at, doc)
SELECT p.id, p.created_at, lower(concat_ws(' ', p.username, p.display_name, p.name, u.email))
FROM public.public_profiles p LEFT JOIN auth.users u ON u.id = p.id;

CREATE INDEX public_profiles_created_idx ON public.public_profiles (created_at DESC, id DESC);
CREATE INDEX public_profiles_role_created_idx ON public.public_profiles (role, created_at DESC, id DESC);
CREATE INDEX public_profiles_suspended_idx ON public.public_profiles (created_at DESC, id DESC) WHERE is_suspended;
CREATE INDEX public_profiles_verified_idx ON public.public_profiles (created_at DESC, id DESC) WHERE is_verified;

-- Users, newest first, filtered by a search text (e-mail, username, names),
-- role, verification and suspension.
CREATE FUNCTION public.admin_search_users(p_query text DEFAULT NULL, p_role public.app_role DEFAULT NULL,
  p_verified boolean DEFAULT NULL, p_suspended boolean DEFAULT NULL, p_before_created timestamptz DEFAULT NULL,
  p_before_id uuid DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (id uuid, email text, role public.app_role, display_name text, username text, avatar_url text,
  is_verified boolean, is_suspended boolean, suspended_reason text, balance numeric, created_at timestamptz,
  last_sign_in_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  pat text := CASE WHEN coalesce(btrim(p_query), '') <> '' THEN backline.contains_pattern(p_query) END;
BEGIN
  PERFORM backline.admin_actor();
  RETURN QUERY
  WITH page AS (
    -- A search walks the search table (by text, or newest first).
    (SELECT p.* FROM backline.user_search s JOIN public.public_profiles p ON p.id = s.id
     WHERE pat IS NOT NULL AND s.doc LIKE pat
       AND (p_role IS NULL OR p.role = p_role)
       AND (p_verified IS NULL OR p.is_verified = p_verified)
       AND (p_suspended IS NULL OR p.is_suspended = p_suspended)
       AND (p_before_created IS NULL OR (s.created_at, s.id) < (p_before_created, coalesce(p_before_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')))
     ORDER BY s.created_at DESC, s.id DESC
     LIMIT backline.page_size(p_limit))
    UNION ALL
    -- Otherwise the profiles, along the index that fits the filters.
    (SELECT p.* FROM public.public_profiles p
     WHERE pat IS NULL
       AND (p_role IS NULL OR p.role = p_role)
       AND (p_verified IS NULL OR p.is_verified = p_verified)
       AND (p_suspended IS NULL OR p.is_suspended = p_suspended)
       AND (p_before_created IS NULL OR (p.created_at, p.id) < (p_before_created, coalesce(p_before_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')))
     ORDER BY p.created_at DESC, p.id DESC
     LIMIT backline.page_size(p_limit))
  )
  SELECT page.id, u.email::text, page.role, page.display_name, page.username, page.avatar_url, page.is_verified,
    page.is_suspended, page.suspended_reason, w.balance, page.created_at, u.last_sign_in_at
  FROM page
  JOIN auth.users u ON u.id = page.id
  LEFT JOIN public.wallets w ON w.id = page.id
  ORDER BY page.created_at DESC, page.id DESC;
END $$;

-- The first user list (0004) read by offset; admin_search_users replaces it.
DROP FUNCTION public.admin_list_users(integer, integer);

-- One user, everything an admin needs to judge them: profile and account,
-- role profile, wallet, sessions and devices, streams, fraud flags,
-- cash-outs and the admin actions about them.
CREATE FUNCTION public.admin_user_detail(p_user_id uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  p public.public_profiles;
  result jsonb;
BEGIN
  PERFORM backline.admin_actor();
  SELECT * INTO p FROM public.public_profiles WHERE id = p_user_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'User not found' USING ERRCODE = 'P0001';
  END IF;
  SELECT jsonb_build_object(
    'profile', to_jsonb(p),
    'account', (SELECT jsonb_build_object('email', u.email, 'created_at', u.created_at,
        'last_sign_in_at', u.last_sign_in_at, 'email_confirmed_at', u.email_confirmed_at)
      FROM auth.users u WHERE u.id = p_user_id),
    'role', (SELECT role FROM public.user_roles WHERE user_id = p_user_id),
    'artist', (SELECT to_jsonb(a) FROM public.artist_profiles a WHERE a.id = p_user_id),
    'sponsor', (SELECT to_jsonb(s) FROM public.sponsor_profiles s WHERE s.id = p_user_id),
    'wallet', (SELECT jsonb_build_object('balance', w.balance, 'currency', w.currency, 'updated_at', w.updated_at)
      FROM public.wallets w WHERE w.id = p_user_id),
    'sessions', coalesce((SELECT jsonb_agg(s ORDER BY s.last_seen DESC) FROM (
        SELECT session_id, device_info, ip_address, created_at, last_seen FROM public.user_sessions
        WHERE user_id = p_user_id ORDER BY last_seen DESC LIMIT 20) s), '[]'),
    'devices', coalesce((SELECT jsonb_agg(d ORDER BY d.last_seen DESC) FROM (
        SELECT fingerprint, user_agent, platform, screen_resolution, timezone, trust_score, first_seen, last_seen,
          seen_count, trust_score < backline.setting_num('device_trust_suspicious_below') AS suspicious
        FROM public.device_fingerprints WHERE user_id = p_user_id ORDER BY last_seen DESC LIMIT 20) d), '[]'),
    'streams', (SELECT jsonb_build_object('valid', count(*) FILTER (WHERE is_valid),
        'rejected', count(*) FILTER (WHERE NOT is_valid), 'paid', count(*) FILTER (WHERE paid_reference IS NOT NULL))
      FROM public.streams WHERE user_id = p_user_id),
    'recent_streams', coalesce((SELECT jsonb_agg(s ORDER BY s.created_at DESC) FROM (
        SELECT st.id, st.track_id, t.title, st.is_valid, st.invalid_reason, st.duration, st.created_at,
          st.paid_reference IS NOT NULL AS paid
        FROM public.streams st JOIN public.tracks t ON t.id = st.track_id
        WHERE st.user_id = p_user_id ORDER BY st.created_at DESC LIMIT 20) s), '[]'),
    'fraud_flags', coalesce((SELECT jsonb_agg(f ORDER BY f.created_at DESC) FROM (
        SELECT action, entity_id AS track_id, details, created_at FROM public.activity_log
        WHERE actor_id = p_user_id AND action = 'fraud.detected' ORDER BY created_at DESC LIMIT 20) f), '[]'),
    'blocked_streams', (SELECT count(*) FROM public.streams
      WHERE user_id = p_user_id AND NOT is_valid AND invalid_reason LIKE 'Stream blocked%'),
    'cashouts', coalesce((SELECT jsonb_agg(c ORDER BY c.created_at DESC) FROM (
        SELECT id, amount, status, reason, created_at, processed_at FROM public.cashout_requests
        WHERE user_id = p_user_id ORDER BY created_at DESC LIMIT 10) c), '[]'),
    'audit', coalesce((SELECT jsonb_agg(x ORDER BY x.id DESC) FROM (
        SELECT id, actor_id, backline.person_name(actor_id) AS actor_name, action, reason, created_at
        FROM public.admin_audit_log WHERE target_type IN ('user', 'public_profiles', 'user_roles')
          AND target_id = p_user_id::text
        ORDER BY created_at DESC, id DESC LIMIT 20) x), '[]'))
  INTO result;
  RETURN result;
END $$;

-- The part of a profile a suspension or role change is about.
CREATE FUNCTION backline.account_state(p_user_id uuid) RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT jsonb_build_object('role', r.role, 'is_suspended', p.is_suspended, 'suspended_reason', p.suspended_reason,
    'suspended_at', p.suspended_at)
  FROM public.public_profiles p LEFT JOIN public.user_roles r ON r.user_id = p.id WHERE p.id = p_user_id
$$;

CREATE FUNCTION public.admin_suspend_user(p_user_id uuid, p_reason text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  v_reason text := backline.require_reason(p_reason);
  before jsonb;
  after jsonb;
BEGIN
  PERFORM 1 FROM public.public_profiles WHERE id = p_user_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'User not found' USING ERRCODE = 'P0001';
  END IF;
  before := backline.account_state(p_user_id);
  IF (before ->> 'is_suspended')::boolean THEN
    RAISE EXCEPTION 'User is already suspended' USING ERRCODE = 'P0001';
  END IF;
  UPDATE public.public_profiles SET is_suspended = true, suspended_reason = v_reason, suspended_at = now()
  WHERE id = p_user_id;
  after := backline.account_state(p_user_id);
  PERFORM backline.audit(actor, 'user.suspend', 'user', p_user_id::text, v_reason, before, after);
  PERFORM backline.notify(p_user_id, 'system_update', 'Account suspended',
    format('Your account has been suspended: %s', v_reason), jsonb_build_object('reason', v_reason));
  RETURN jsonb_build_object('success', true, 'user_id', p_user_id) || after;
END $$;

CREATE FUNCTION public.admin_unsuspend_user(p_user_id uuid, p_reason text DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  before jsonb;
  after jsonb;
BEGIN
  PERFORM 1 FROM public.public_profiles WHERE id = p_user_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'User not found' USING ERRCODE = 'P0001';
  END IF;
  before := backline.account_state(p_user_id);
  IF NOT (before ->> 'is_suspended')::boolean THEN
    RAISE EXCEPTION 'User is not suspended' USING ERRCODE = 'P0001';
  END IF;
  UPDATE public.public_profiles SET is_suspended = false, suspended_reason = NULL, suspended_at = NULL
  WHERE id = p_user_id;
  after := backline.account_state(p_user_id);
  PERFORM backline.audit(actor, 'user.unsuspend', 'user', p_user_id::text, p_reason, before, after);
  PERFORM backline.notify(p_user_id, 'system_update', 'Account restored', 'Your account is active again.');
  RETURN jsonb_build_object('success', true, 'user_id', p_user_id) || after;
END $$;

-- A new role brings the role profile it needs (an artist's tracks hang off
-- artist_profiles); the old role profile is kept, with its history.
CREATE FUNCTION public.admin_set_user_role(p_user_id uuid, p_role public.app_role, p_reason text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  v_reason text := backline.require_reason(p_reason);
  before jsonb;
  after jsonb;
  display text;
BEGIN
  IF p_role IS NULL THEN
    RAISE EXCEPTION 'Choose a role' USING ERRCODE = 'P0001';
  END IF;
  PERFORM 1 FROM public.user_roles WHERE user_id = p_user_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'User not found' USING ERRCODE = 'P0001';
  END IF;
  before := backline.account_state(p_user_id);
  IF before ->> 'role' = p_role::text THEN
    RAISE EXCEPTION 'User already has this role' USING ERRCODE = 'P0001';
  END IF;
  UPDATE public.user_roles SET role = p_role WHERE user_id = p_user_id;
  SELECT coalesce(display_name, username) INTO display FROM public.public_profiles WHERE id = p_user_id;
  IF p_role = 'artist' THEN
    INSERT INTO public.artist_profiles (id, name) VALUES (p_user_id, coalesce(display, 'Artist')) ON CONFLICT (id) DO NOTHING;
  ELSIF p_role = 'sponsor' THEN
    INSERT INTO public.sponsor_profiles (id, name) VALUES (p_user_id, display) ON CONFLICT (id) DO NOTHING;
  ELSIF p_role = 'fan' THEN
    INSERT INTO public.fan_profiles (id) VALUES (p_user_id) ON CONFLICT (id) DO NOTHING;
  END IF;
  after := backline.account_state(p_user_id);
  PERFORM backline.audit(actor, 'user.role', 'user', p_user_id::text, v_reason, before, after);
  PERFORM backline.notify(p_user_id, 'system_update', 'Your role changed',
    format('Your account is now a %s account.', p_role), jsonb_build_object('role', p_role));
  RETURN jsonb_build_object('success', true, 'user_id', p_user_id) || after;
END $$;

-- ---------------------------------------------------------------------------
-- The activity feed: what users did (activity_log: sign-ups, uploads,
-- payments, cash-out requests, invites, fraud flags), every stream with its
-- verdict, and every admin action (the audit log), newest first. Each source
-- is read along its own (created_at, id) index and the pages are merged; the
-- cursor is the last row's time and key ('a:' activity, 's:' stream,
-- 'x:' admin action), compared in the C collation.

-- The feed's kind of an activity_log action.
CREATE FUNCTION backline.activity_kind(p_action text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT CASE
    WHEN p_action = 'user.signup' THEN 'signup'
    WHEN p_action LIKE 'track.%' THEN 'upload'
    WHEN p_action LIKE 'payment.%' THEN 'payment'
    WHEN p_action LIKE 'cashout.%' THEN 'cashout'
    WHEN p_action LIKE 'invite.%' THEN 'invite'
    WHEN p_action LIKE 'fraud.%' THEN 'fraud'
    WHEN p_action LIKE 'kyc.%' THEN 'verification'
    ELSE 'account' END
$$;
CREATE INDEX activity_log_feed_idx ON public.activity_log (created_at DESC, id DESC);
CREATE INDEX activity_log_kind_idx ON public.activity_log (backline.activity_kind(action), created_at DESC, id DESC);
CREATE INDEX streams_created_idx ON public.streams (created_at DESC, id DESC);
CREATE INDEX streams_rejected_idx ON public.streams (created_at DESC, id DESC) WHERE NOT is_valid;

CREATE FUNCTION public.admin_activity(p_kind text DEFAULT NULL, p_user_id uuid DEFAULT NULL,
  p_from timestamptz DEFAULT NULL, p_to timestamptz DEFAULT NULL, p_before_at timestamptz DEFAULT NULL,
  p_before_key text DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (at timestamptz, key text, kind text, action text, actor_id uuid, actor_name text,
  subject_type text, subject_id text, details jsonb)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  n int := backline.page_size(p_limit);
  k text := nullif(btrim(coalesce(p_kind, '')), '');
  -- The upper bound: the cursor's time, else the end of the date filter.
  hi timestamptz := least(coalesce(p_before_at, 'infinity'), coalesce(p_to, 'infinity'));
  ck text := CASE WHEN p_before_at IS NOT NULL AND p_before_at <= coalesce(p_to, 'infinity') THEN p_before_key END;
  lo timestamptz := coalesce(p_from, '-infinity');
BEGIN
  PERFORM backline.admin_actor();
  IF k IS NOT NULL AND k NOT IN ('signup', 'upload', 'payment', 'cashout', 'invite', 'fraud', 'verification',
      'account', 'stream', 'stream_valid', 'stream_rejected', 'admin') THEN
    RAISE EXCEPTION 'Unknown activity kind %', k USING ERRCODE = 'P0001';
  END IF;
  RETURN QUERY
  WITH act AS (
    SELECT a.created_at AS at, 'a:' || lpad(a.id::text, 20, '0') AS key, backline.activity_kind(a.action) AS kind,
      a.action, a.actor_id, a.entity_type AS subject_type, a.entity_id AS subject_id, a.details
    FROM public.activity_log a
    WHERE (k IS NULL OR k NOT IN ('stream', 'stream_valid', 'stream_rejected', 'admin'))
      AND (k IS NULL OR backline.activity_kind(a.action) = k)
      AND (p_user_id IS NULL OR a.actor_id = p_user_id)
      AND a.created_at <= hi AND a.created_at >= lo
      AND (ck IS NULL OR a.created_at < hi OR ('a:' || lpad(a.id::text, 20, '0')) COLLATE "C" < ck COLLATE "C")
    ORDER BY a.created_at DESC, a.id DESC
    LIMIT n
  ), str AS (
    SELECT s.created_at AS at, 's:' || s.id::text AS key, 'stream'::text AS kind,
      CASE WHEN s.is_valid THEN 'stream.valid' ELSE 'stream.rejected' END AS action, s.user_id AS actor_id,
      'track'::text AS subject_type, s.track_id::text AS subject_id,
      jsonb_build_object('is_valid', s.is_valid, 'invalid_reason', s.invalid_reason, 'duration', s.duration,
        'paid', s.paid_reference IS NOT NULL) AS details
    FROM public.streams s
    WHERE (k IS NULL OR k IN ('stream', 'stream_valid', 'stream_rejected'))
      AND (k IS DISTINCT FROM 'stream_valid' OR s.is_valid)
      AND (k IS DISTINCT FROM 'stream_rejected' OR NOT s.is_valid)
      AND (p_user_id IS NULL OR s.user_id = p_user_id)
      AND s.created_at <= hi AND s.created_at >= lo
      AND (ck IS NULL OR s.created_at < hi OR ('s:' || s.id::text) COLLATE "C" < ck COLLATE "C")
    ORDER BY s.created_at DESC, s.id DESC
    LIMIT n
  ), adm AS (
    SELECT x.created_at AS at, 'x:' || lpad(x.id::text, 20, '0') AS key, 'admin'::text AS kind, x.action,
      x.actor_id, x.target_type AS subject_type, x.target_id AS subject_id,
      jsonb_build_object('reason', x.reason, 'before', x.before, 'after', x.after) AS details
    FROM public.admin_audit_log x
    WHERE (k IS NULL OR k = 'admin')
      AND (p_user_id IS NULL OR x.actor_id = p_user_id)
      AND x.created_at <= hi AND x.created_at >= lo
      AND (ck IS NULL OR x.created_at < hi OR ('x:' || lpad(x.id::text, 20, '0')) COLLATE "C" < ck COLLATE "C")
    ORDER BY x.created_at DESC, x.id DESC
    LIMIT n
  ), page AS (
    SELECT u.* FROM (SELECT * FROM act UNION ALL SELECT * FROM str UNION ALL SELECT * FROM adm) u
    ORDER BY u.at DESC, u.key COLLATE "C" DESC
    LIMIT n
  )
  SELECT page.at, page.key, page.kind, page.action, page.actor_id, backline.person_name(page.actor_id),
    page.subject_type, page.subject_id,
    CASE WHEN page.kind = 'stream' THEN page.details || jsonb_build_object('title',
      (SELECT t.title FROM public.tracks t WHERE t.id = page.subject_id::uuid)) ELSE page.details END
  FROM page
  ORDER BY page.at DESC, page.key COLLATE "C" DESC;
END $$;

REVOKE EXECUTE ON FUNCTION
  public.admin_search_users(text, public.app_role, boolean, boolean, timestamptz, uuid, integer),
  public.admin_user_detail(uuid),
  public.admin_suspend_user(uuid, text),
  public.admin_unsuspend_user(uuid, text),
  public.admin_set_user_role(uuid, public.app_role, text),
  public.admin_activity(text, uuid, timestamptz, timestamptz, timestamptz, text, integer)
FROM PUBLIC, anon;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA backline FROM PUBLIC;
REVOKE ALL ON backline.user_search FROM PUBLIC;
