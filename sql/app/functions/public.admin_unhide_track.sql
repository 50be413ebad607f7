CREATE OR REPLACE FUNCTION public.admin_unhide_track(p_track_id uuid, p_reason text DEFAULT NULL) RETURNS jsonb
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT backline.moderate_track(p_track_id, 'active', p_reason, 'track.unhide',
    'Track restored', 'Your track "%s" is available to listeners again.')
$$;

REVOKE ALL ON FUNCTION public.admin_unhide_track(uuid, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_unhide_track(uuid, text) TO authenticated, service_role;
