-- Append-only for everyone: privileges stop the API roles, this stops the
-- owner and any SECURITY DEFINER function.
CREATE OR REPLACE FUNCTION backline.audit_is_append_only() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  RAISE EXCEPTION 'audit rows cannot be changed or removed' USING ERRCODE = '42501';
END $$;

CREATE OR REPLACE TRIGGER append_only BEFORE UPDATE OR DELETE ON public.admin_audit_log
  FOR EACH ROW EXECUTE FUNCTION backline.audit_is_append_only();

CREATE OR REPLACE TRIGGER append_only_truncate BEFORE TRUNCATE ON public.admin_audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION backline.audit_is_append_only();

REVOKE ALL ON FUNCTION backline.audit_is_append_only() FROM PUBLIC, anon, authenticated, service_role;
