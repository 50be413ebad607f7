-- Sponsorship invites. The same rules hold for the RPC and for the spec's
-- direct table writes: this guard fixes who initiated and what may change,
-- and the after-update trigger (invite_changed) marks the track sponsored
-- and notifies.
CREATE OR REPLACE FUNCTION backline.guard_invite() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  t record;
BEGIN
  IF current_user::text NOT IN ('anon', 'authenticated') THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' THEN
    NEW.initiated_by := CASE WHEN NEW.sponsor_id = uid THEN 'sponsor' ELSE 'artist' END;
    NEW.status := 'pending';
    NEW.created_at := now();
    NEW.responded_at := NULL;
    IF NEW.track_id IS NOT NULL THEN
      SELECT artist_id, is_sponsored, sponsor_id INTO t FROM public.tracks WHERE id = NEW.track_id;
      IF NOT FOUND OR t.artist_id <> NEW.artist_id THEN
        RAISE EXCEPTION 'Track not found' USING ERRCODE = 'P0001';
      END IF;
      IF t.is_sponsored AND t.sponsor_id IS DISTINCT FROM NEW.sponsor_id THEN
        RAISE EXCEPTION 'Track is already sponsored' USING ERRCODE = 'P0001';
      END IF;
    END IF;
    RETURN NEW;
  END IF;
  IF public.is_admin() THEN
    RETURN NEW;
  END IF;
  IF OLD.status <> 'pending' THEN
    RAISE EXCEPTION 'This invitation has already been answered' USING ERRCODE = 'P0001';
  END IF;
  -- The invitee answers; nothing else about the invite changes.
  NEW.id := OLD.id;
  NEW.artist_id := OLD.artist_id;
  NEW.sponsor_id := OLD.sponsor_id;
  NEW.track_id := OLD.track_id;
  NEW.initiated_by := OLD.initiated_by;
  NEW.pitch := OLD.pitch;
  NEW.created_at := OLD.created_at;
  NEW.responded_at := CASE WHEN NEW.status <> 'pending' THEN now() END;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER guard_invite BEFORE INSERT OR UPDATE ON public.sponsor_artist_invites
  FOR EACH ROW EXECUTE FUNCTION backline.guard_invite();

REVOKE ALL ON FUNCTION backline.guard_invite() FROM PUBLIC, anon, authenticated, service_role;
