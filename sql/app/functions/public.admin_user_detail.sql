-- One user, everything an admin needs to judge them: profile and account,
-- role profile, wallet, sessions and devices, streams, fraud flags,
-- cash-outs and the admin actions about them.
CREATE OR REPLACE FUNCTION public.admin_user_detail(p_user_id uuid) RETURNS jsonb
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

REVOKE ALL ON FUNCTION public.admin_user_detail(uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_user_detail(uuid) TO authenticated, service_role;
