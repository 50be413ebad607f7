CREATE OR REPLACE FUNCTION public.admin_hide_track(p_track_id uuid, p_reason text) RETURNS jsonb
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT backline.moderate_track(p_track_id, 'hidden', p_reason, 'track.hide',
    'Track hidden', 'Your track "%s" has been hidden from listeners: %s')
$$;

REVOKE ALL ON FUNCTION public.admin_hide_track(uuid, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_hide_track(uuid, text) TO authenticated, service_role;
