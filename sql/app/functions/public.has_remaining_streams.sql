CREATE OR REPLACE FUNCTION public.has_remaining_streams(p_user_id uuid) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  RETURN (backline.daily_limit(backline.require_self(p_user_id))).streams_remaining > 0;
END $$;

REVOKE ALL ON FUNCTION public.has_remaining_streams(uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.has_remaining_streams(uuid) TO authenticated, service_role;
