-- The sponsor's first screen: the dashboard and the spending charts for the
-- period the page opens on.
CREATE OR REPLACE FUNCTION public.get_sponsor_first_screen(p_days integer DEFAULT 7) RETURNS jsonb
LANGUAGE sql STABLE SECURITY INVOKER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT jsonb_build_object('dashboard', public.get_sponsor_dashboard(), 'analytics', public.get_sponsor_analytics(p_days))
$$;

REVOKE ALL ON FUNCTION public.get_sponsor_first_screen(integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_sponsor_first_screen(integer) TO authenticated, service_role;
