-- The signed-in, unsuspended caller: what the dashboards read for.
CREATE OR REPLACE FUNCTION backline.require_user() RETURNS uuid
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE uid uuid := auth.uid();
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'Authentication required' USING ERRCODE = 'P0001';
  END IF;
  PERFORM backline.require_active();
  RETURN uid;
END $$;

REVOKE ALL ON FUNCTION backline.require_user() FROM PUBLIC, anon, authenticated, service_role;
