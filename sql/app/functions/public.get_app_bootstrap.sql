-- The shell's data. The unread count is that of the newest 200
-- notifications, the ones the notifications panel lists.
CREATE OR REPLACE FUNCTION public.get_app_bootstrap(p_session_id text DEFAULT NULL, p_device_info text DEFAULT NULL)
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
  suspended := public.is_user_suspended(uid);
  -- A suspended account is told so (and why); it records no session.
  IF coalesce(btrim(p_session_id), '') <> '' AND NOT suspended THEN
    PERFORM public.upsert_user_session(uid, p_session_id, p_device_info);
    recorded := true;
  END IF;
  SELECT * INTO p FROM public.public_profiles WHERE id = uid;
  -- As the app's role lookup: the profile's role, else user_roles.
  r := coalesce(p.role, (SELECT ur.role FROM public.user_roles ur WHERE ur.user_id = uid));
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

REVOKE ALL ON FUNCTION public.get_app_bootstrap(text, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_app_bootstrap(text, text) TO PUBLIC, anon, authenticated, service_role;
