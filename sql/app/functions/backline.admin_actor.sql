-- The admin a request acts for, or 42501. Only a signed-in request counts:
-- the service role carries no person, so it cannot act as an admin. The
-- transaction-local flag tells the direct-write audit trigger that the
-- function writes its own, richer audit row.
CREATE OR REPLACE FUNCTION backline.admin_actor() RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE uid uuid := auth.uid();
BEGIN
  IF uid IS NULL OR current_setting('role', true) IS DISTINCT FROM 'authenticated' OR NOT public.is_admin() THEN
    RAISE EXCEPTION 'Only admins can do this' USING ERRCODE = '42501';
  END IF;
  PERFORM set_config('backline.admin_call', 'on', true);
  RETURN uid;
END $$;

REVOKE ALL ON FUNCTION backline.admin_actor() FROM PUBLIC, anon, authenticated, service_role;
