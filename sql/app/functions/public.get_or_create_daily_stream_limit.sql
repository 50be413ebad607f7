-- Daily allowance.
CREATE OR REPLACE FUNCTION public.get_or_create_daily_stream_limit(p_user_id uuid)
RETURNS SETOF public.daily_stream_limits
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  RETURN NEXT backline.daily_limit(backline.require_self(p_user_id));
END $$;

REVOKE ALL ON FUNCTION public.get_or_create_daily_stream_limit(uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_or_create_daily_stream_limit(uuid) TO authenticated, service_role;
