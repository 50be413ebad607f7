-- One track: its streams by verdict and reason, listeners, the addresses it
-- is streamed from (keyed hashes, never IPs), fraud flags raised on it,
-- recent streams and the admin actions about it.
CREATE OR REPLACE FUNCTION public.admin_track_detail(p_track_id uuid) RETURNS jsonb
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

REVOKE ALL ON FUNCTION public.admin_track_detail(uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_track_detail(uuid) TO authenticated, service_role;
