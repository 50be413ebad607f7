-- Owners edit their presentation; role, verification and suspension are the
-- platform's (payments, admins). Admin changes to role flow to user_roles.
CREATE OR REPLACE FUNCTION backline.guard_public_profile() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_user::text NOT IN ('anon', 'authenticated') THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' THEN
    NEW.role := public.current_user_role();
    NEW.is_verified := false;
    NEW.verification_expires_at := NULL;
    NEW.is_suspended := false;
    NEW.suspended_reason := NULL;
    NEW.suspended_at := NULL;
    RETURN NEW;
  END IF;
  IF NEW.id IS DISTINCT FROM OLD.id OR NEW.created_at IS DISTINCT FROM OLD.created_at THEN
    RAISE EXCEPTION 'permission denied to change profile id' USING ERRCODE = '42501';
  END IF;
  IF public.is_admin() THEN
    IF NEW.is_suspended AND NOT OLD.is_suspended THEN
      NEW.suspended_at := now();
    ELSIF NOT NEW.is_suspended THEN
      NEW.suspended_at := NULL;
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.role IS DISTINCT FROM OLD.role
     OR NEW.is_verified IS DISTINCT FROM OLD.is_verified
     OR NEW.verification_expires_at IS DISTINCT FROM OLD.verification_expires_at
     OR NEW.is_suspended IS DISTINCT FROM OLD.is_suspended
     OR NEW.suspended_reason IS DISTINCT FROM OLD.suspended_reason
     OR NEW.suspended_at IS DISTINCT FROM OLD.suspended_at THEN
    RAISE EXCEPTION 'permission denied to change role, verification or suspension' USING ERRCODE = '42501';
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER guard_public_profile BEFORE INSERT OR UPDATE ON public.public_profiles
  FOR EACH ROW EXECUTE FUNCTION backline.guard_public_profile();

REVOKE ALL ON FUNCTION backline.guard_public_profile() FROM PUBLIC, anon, authenticated, service_role;
