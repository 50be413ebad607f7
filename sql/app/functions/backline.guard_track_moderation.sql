-- The moderation columns are the platform's: an artist's insert starts
-- active, and only admins change them.
CREATE OR REPLACE FUNCTION backline.guard_track_moderation() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_user::text NOT IN ('anon', 'authenticated') THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' THEN
    NEW.status := 'active';
    NEW.moderation_reason := NULL;
    NEW.moderated_at := NULL;
    NEW.moderated_by := NULL;
    RETURN NEW;
  END IF;
  IF (NEW.status IS DISTINCT FROM OLD.status OR NEW.moderation_reason IS DISTINCT FROM OLD.moderation_reason
      OR NEW.moderated_at IS DISTINCT FROM OLD.moderated_at OR NEW.moderated_by IS DISTINCT FROM OLD.moderated_by)
     AND NOT public.is_admin() THEN
    RAISE EXCEPTION 'permission denied to change the moderation of a track' USING ERRCODE = '42501';
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER guard_track_moderation BEFORE INSERT OR UPDATE ON public.tracks
  FOR EACH ROW EXECUTE FUNCTION backline.guard_track_moderation();

REVOKE ALL ON FUNCTION backline.guard_track_moderation() FROM PUBLIC, anon, authenticated, service_role;
