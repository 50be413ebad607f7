CREATE OR REPLACE FUNCTION public.admin_ledger_recheck() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  PERFORM backline.admin_actor();
  RETURN backline.ledger_recheck();
END $$;

REVOKE ALL ON FUNCTION public.admin_ledger_recheck() FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_ledger_recheck() TO authenticated, service_role;
