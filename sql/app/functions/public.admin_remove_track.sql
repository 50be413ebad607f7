CREATE OR REPLACE FUNCTION public.admin_remove_track(p_track_id uuid, p_reason text) RETURNS jsonb
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT backline.moderate_track(p_track_id, 'removed', p_reason, 'track.remove',
    'Track removed', 'Your track "%s" has been removed: %s')
$$;

REVOKE ALL ON FUNCTION public.admin_remove_track(uuid, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_remove_track(uuid, text) TO authenticated, service_role;
