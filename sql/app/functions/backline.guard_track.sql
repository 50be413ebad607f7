-- The stream counter is the server's. A track becomes sponsored only by a
-- sponsor the artist has an accepted invite with, and a sponsored track
-- cannot be moved to another sponsor (spec: it cannot be pitched again).
CREATE OR REPLACE FUNCTION backline.guard_track() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_user::text NOT IN ('anon', 'authenticated') THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' THEN
    NEW.streams := 0;
    NEW.created_at := now();
  ELSE
    NEW.streams := OLD.streams;
    NEW.created_at := OLD.created_at;
    NEW.id := OLD.id;
    IF NEW.artist_id IS DISTINCT FROM OLD.artist_id THEN
      RAISE EXCEPTION 'permission denied to change the artist of a track' USING ERRCODE = '42501';
    END IF;
  END IF;
  IF public.is_admin() THEN
    RETURN NEW;
  END IF;
  IF NEW.sponsor_id IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.sponsor_id IS DISTINCT FROM OLD.sponsor_id) THEN
    IF TG_OP = 'UPDATE' AND OLD.is_sponsored AND OLD.sponsor_id IS NOT NULL THEN
      RAISE EXCEPTION 'track is already sponsored' USING ERRCODE = '42501';
    END IF;
    IF NOT public.check_active_sponsorship_for_track(NEW.artist_id, NEW.sponsor_id, NEW.id) THEN
      RAISE EXCEPTION 'no accepted sponsorship between this artist and sponsor' USING ERRCODE = '42501';
    END IF;
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER guard_track BEFORE INSERT OR UPDATE ON public.tracks
  FOR EACH ROW EXECUTE FUNCTION backline.guard_track();

REVOKE ALL ON FUNCTION backline.guard_track() FROM PUBLIC, anon, authenticated, service_role;
