CREATE OR REPLACE FUNCTION backline.sync_user_role() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  UPDATE public.public_profiles SET role = NEW.role WHERE id = NEW.user_id AND role IS DISTINCT FROM NEW.role;
  PERFORM backline.log_activity(auth.uid(), 'user.role_changed', 'user', NEW.user_id::text,
    jsonb_build_object('role', NEW.role));
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER sync_user_role AFTER UPDATE OF role ON public.user_roles
  FOR EACH ROW EXECUTE FUNCTION backline.sync_user_role();

REVOKE ALL ON FUNCTION backline.sync_user_role() FROM PUBLIC, anon, authenticated, service_role;
