-- Admins (or the service role) only.
CREATE OR REPLACE FUNCTION backline.require_admin() RETURNS uuid
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_setting('role', true) IN ('anon', 'authenticated') AND NOT public.is_admin() THEN
    RAISE EXCEPTION 'Only admins can do this' USING ERRCODE = '42501';
  END IF;
  RETURN auth.uid();
END $$;

REVOKE ALL ON FUNCTION backline.require_admin() FROM PUBLIC, anon, authenticated, service_role;
