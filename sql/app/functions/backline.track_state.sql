CREATE OR REPLACE FUNCTION backline.track_state(p_track_id uuid) RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT jsonb_build_object('status', status, 'moderation_reason', moderation_reason, 'moderated_at', moderated_at,
    'moderated_by', moderated_by, 'is_sponsored', is_sponsored, 'sponsor_id', sponsor_id)
  FROM public.tracks WHERE id = p_track_id
$$;

REVOKE ALL ON FUNCTION backline.track_state(uuid) FROM PUBLIC, anon, authenticated, service_role;
