-- Keeps user_roles and public_profiles.role in step after an admin change,
-- and records suspensions in the activity log.
CREATE OR REPLACE FUNCTION backline.sync_profile_role() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF NEW.role IS NOT NULL AND NEW.role IS DISTINCT FROM OLD.role THEN
    UPDATE public.user_roles SET role = NEW.role WHERE user_id = NEW.id AND role IS DISTINCT FROM NEW.role;
  END IF;
  IF NEW.is_suspended IS DISTINCT FROM OLD.is_suspended THEN
    PERFORM backline.log_activity(auth.uid(), CASE WHEN NEW.is_suspended THEN 'user.suspend' ELSE 'user.unsuspend' END,
      'user', NEW.id::text, jsonb_build_object('reason', NEW.suspended_reason));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER sync_profile_role AFTER UPDATE ON public.public_profiles
  FOR EACH ROW EXECUTE FUNCTION backline.sync_profile_role();

REVOKE ALL ON FUNCTION backline.sync_profile_role() FROM PUBLIC, anon, authenticated, service_role;
