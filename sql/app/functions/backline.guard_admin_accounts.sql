-- Admins may not take away their own powers, nor leave the platform without
-- an active admin. Checked for every signed-in caller on every path (the
-- admin functions and the direct writes 0002 allows); the operator's psql
-- session (no caller) is not limited.
CREATE OR REPLACE FUNCTION backline.guard_admin_accounts() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  target uuid;
  was_admin boolean;
  stays_admin boolean := false;
  others int;
BEGIN
  IF uid IS NULL THEN
    RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
  END IF;
  IF TG_TABLE_NAME = 'user_roles' THEN
    target := OLD.user_id;
    was_admin := OLD.role = 'admin'
      AND NOT coalesce((SELECT is_suspended FROM public.public_profiles WHERE id = OLD.user_id), false);
    stays_admin := TG_OP = 'UPDATE' AND NEW.role = 'admin' AND NEW.user_id = OLD.user_id;
  ELSE
    target := OLD.id;
    was_admin := NOT OLD.is_suspended
      AND EXISTS (SELECT 1 FROM public.user_roles WHERE user_id = OLD.id AND role = 'admin');
    stays_admin := TG_OP = 'UPDATE' AND NOT NEW.is_suspended
      AND (NEW.role IS NOT DISTINCT FROM OLD.role OR NEW.role = 'admin');
  END IF;
  IF was_admin AND NOT stays_admin THEN
    IF target = uid THEN
      RAISE EXCEPTION 'Admins cannot demote or suspend themselves' USING ERRCODE = 'P0001';
    END IF;
    -- Serialise: two admins demoting each other at once must not both pass.
    PERFORM backline.lock_key('backline:active-admins');
    SELECT count(*) INTO others FROM public.user_roles r JOIN public.public_profiles p ON p.id = r.user_id
    WHERE r.role = 'admin' AND NOT p.is_suspended AND r.user_id <> target;
    IF others = 0 THEN
      RAISE EXCEPTION 'The last admin cannot be demoted or suspended' USING ERRCODE = 'P0001';
    END IF;
  END IF;
  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END $$;

CREATE OR REPLACE TRIGGER guard_admin_accounts BEFORE UPDATE OR DELETE ON public.user_roles
  FOR EACH ROW EXECUTE FUNCTION backline.guard_admin_accounts();

CREATE OR REPLACE TRIGGER guard_admin_accounts BEFORE UPDATE OF role, is_suspended OR DELETE ON public.public_profiles
  FOR EACH ROW EXECUTE FUNCTION backline.guard_admin_accounts();

REVOKE ALL ON FUNCTION backline.guard_admin_accounts() FROM PUBLIC, anon, authenticated, service_role;
