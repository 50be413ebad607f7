-- First screens in few requests: every page's shell is one call, and each
-- dashboard's first screen one more (issue "Speed": at most 3 requests).
--
-- get_app_bootstrap is what the app shell needs before it draws anything:
-- the public settings and, for a signed-in caller, their role, own profile,
-- the role profile's completeness fields, their suspension and unread
-- notifications. It also records this device's session (the heartbeat's
-- first beat), so a fresh load asks the API once for all of it.
--
-- get_<role>_first_screen wraps a dashboard's own call (0008) together with
-- the sections drawn beside it on the first screen: the artist's earnings
-- statement and KYC card, the sponsor's spending charts, the fan's
-- playlists and liked tracks. The sections below the first screen (ledger,
-- artist browser) still load on their own when they come into view.
--
-- All of them are SECURITY INVOKER: they read as the caller, so the
-- row-level security of 0002, 0007 and 0014 decides what they see, exactly
-- as for the separate reads they replace. The functions they call keep
-- their own rights (the 0008 dashboards read only the caller's own rows).

-- The shell's data. The unread count is that of the newest 200
-- notifications, the ones the notifications panel lists.
CREATE FUNCTION public.get_app_bootstrap(p_session_id text DEFAULT NULL, p_device_info text DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  settings jsonb := jsonb_build_object(
    'coming_soon', public.get_app_setting('coming_soon_enabled'),
    'countdown_target', public.get_app_text_setting('countdown_target_date'));
  p public.public_profiles;
  r public.app_role;
  suspended boolean;
  recorded boolean := false;
BEGIN
  IF uid IS NULL THEN
    RETURN jsonb_build_object('settings', settings, 'user', NULL);
  END IF;
  IF coalesce(btrim(p_session_id), '') <> '' THEN
    PERFORM public.upsert_user_session(uid, p_session_id, p_device_info);
    recorded := true;
  END IF;
  SELECT * INTO p FROM public.public_profiles WHERE id = uid;
  -- As the app's role lookup: the profile's role, else user_roles.
  r := coalesce(p.role, (SELECT ur.role FROM public.user_roles ur WHERE ur.user_id = uid));
  suspended := public.is_user_suspended(uid);
  RETURN jsonb_build_object('settings', settings, 'user', jsonb_build_object(
    'id', uid,
    'role', r,
    'profile', CASE WHEN p.id IS NOT NULL THEN jsonb_build_object(
      'id', p.id, 'display_name', p.display_name, 'avatar_url', p.avatar_url, 'username', p.username,
      'bio', p.bio, 'is_verified', p.is_verified, 'website', p.website, 'location', p.location, 'role', p.role) END,
    'role_profile', CASE r
      WHEN 'artist' THEN (SELECT jsonb_build_object('phone', a.phone, 'track_count', a.track_count)
                          FROM public.artist_profiles a WHERE a.id = uid)
      WHEN 'sponsor' THEN (SELECT jsonb_build_object('phone', s.phone) FROM public.sponsor_profiles s WHERE s.id = uid)
      WHEN 'fan' THEN (SELECT jsonb_build_object('phone', f.phone) FROM public.fan_profiles f WHERE f.id = uid)
    END,
    'suspended', suspended,
    'suspended_reason', CASE WHEN suspended THEN p.suspended_reason END,
    'unread_notifications', (SELECT count(*) FILTER (WHERE NOT n.is_read)
      FROM (SELECT is_read FROM public.notifications WHERE user_id = uid ORDER BY created_at DESC LIMIT 200) n),
    'session_recorded', recorded));
END $$;

-- The artist's first screen: the dashboard, the earnings statement for the
-- period the page opens on, and the KYC card (the profile's KYC state and
-- the newest submission).
CREATE FUNCTION public.get_artist_first_screen(p_period text, p_from date, p_to date) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY INVOKER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
BEGIN
  RETURN jsonb_build_object(
    'dashboard', public.get_artist_dashboard(),
    'statement', (SELECT coalesce(jsonb_agg(jsonb_build_object('period_start', s.period_start, 'streams', s.streams,
        'amount', s.amount) ORDER BY s.period_start), '[]'::jsonb)
      FROM public.get_earnings_statement(p_period, p_from, p_to) s),
    'kyc', jsonb_build_object(
      'profile', (SELECT jsonb_build_object('kyc_status', a.kyc_status, 'kyc_expiry_date', a.kyc_expiry_date)
                  FROM public.artist_profiles a WHERE a.id = uid),
      'latest', (SELECT jsonb_build_object('id', k.id, 'status', k.status, 'reason', k.reason,
                   'expires_at', k.expires_at, 'created_at', k.created_at, 'document_type', k.document_type)
                 FROM public.kyc_submissions k WHERE k.artist_id = uid ORDER BY k.created_at DESC LIMIT 1)));
END $$;

-- The sponsor's first screen: the dashboard and the spending charts for the
-- period the page opens on.
CREATE FUNCTION public.get_sponsor_first_screen(p_days integer DEFAULT 7) RETURNS jsonb
LANGUAGE sql STABLE SECURITY INVOKER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT jsonb_build_object('dashboard', public.get_sponsor_dashboard(), 'analytics', public.get_sponsor_analytics(p_days))
$$;

-- The fan's first screen: the dashboard, the playlists (track ids in
-- order) and the liked tracks (newest like first), with the rows of those
-- tracks that the caller may see and the people they name. Volatile, as
-- get_fan_dashboard creates today's allowance on first use.
CREATE FUNCTION public.get_fan_first_screen() RETURNS jsonb
LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  dashboard jsonb := public.get_fan_dashboard();
  lists jsonb;
  liked uuid[];
  ids uuid[];
BEGIN
  SELECT coalesce(jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'track_ids',
      (SELECT coalesce(jsonb_agg(pt.track_id ORDER BY pt.position), '[]'::jsonb)
       FROM public.playlist_tracks pt WHERE pt.playlist_id = l.id)) ORDER BY l.created_at), '[]'::jsonb)
    INTO lists
    FROM public.playlists l WHERE l.user_id = uid;
  liked := ARRAY(SELECT f.track_id FROM public.favorites f WHERE f.user_id = uid ORDER BY f.created_at DESC);
  ids := ARRAY(SELECT DISTINCT x FROM (
    SELECT unnest(liked) AS x
    UNION
    SELECT pt.track_id FROM public.playlist_tracks pt JOIN public.playlists l ON l.id = pt.playlist_id WHERE l.user_id = uid) t);
  RETURN jsonb_build_object(
    'dashboard', dashboard,
    'playlists', lists,
    'favorites', to_jsonb(liked),
    'tracks', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'id', t.id, 'title', t.title, 'artist_id', t.artist_id, 'sponsor_id', t.sponsor_id, 'is_sponsored', t.is_sponsored,
        'streams', t.streams, 'cover_url', t.cover_url, 'audio_url', t.audio_url, 'duration', t.duration,
        'created_at', t.created_at, 'release_date', t.release_date, 'description', t.description, 'genre', t.genre,
        'is_explicit', t.is_explicit)), '[]'::jsonb)
      FROM public.tracks t WHERE t.id = ANY (ids)),
    'people', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', p.id, 'display_name', p.display_name,
        'username', p.username, 'avatar_url', p.avatar_url)), '[]'::jsonb)
      FROM public.public_profiles p
      WHERE p.id IN (SELECT t.artist_id FROM public.tracks t WHERE t.id = ANY (ids)
                     UNION SELECT t.sponsor_id FROM public.tracks t WHERE t.id = ANY (ids))));
END $$;

-- Visitors get the settings from the bootstrap; the dashboards are for
-- signed-in callers (the 0008 functions they wrap say the same).
REVOKE EXECUTE ON FUNCTION
  public.get_artist_first_screen(text, date, date), public.get_sponsor_first_screen(integer), public.get_fan_first_screen()
FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION
  public.get_artist_first_screen(text, date, date), public.get_sponsor_first_screen(integer), public.get_fan_first_screen()
TO authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_app_bootstrap(text, text) TO anon, authenticated, service_role;
