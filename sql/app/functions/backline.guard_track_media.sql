-- An artist's track points at the artist's own uploads; its duration is the
-- server's measurement (NULL until set_track_duration runs), never the
-- client's claim. Admins and the platform's roles pass.
CREATE OR REPLACE FUNCTION backline.guard_track_media() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_setting('role', true) NOT IN ('anon', 'authenticated') OR public.is_admin() THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' OR NEW.audio_url IS DISTINCT FROM OLD.audio_url THEN
    NEW.duration := NULL;
    IF NEW.audio_url IS NOT NULL AND NOT backline.own_media(NEW.audio_url, 'tracks', NEW.artist_id) THEN
      RAISE EXCEPTION 'Upload the audio to your own folder first' USING ERRCODE = 'P0001';
    END IF;
  ELSE
    NEW.duration := OLD.duration;
  END IF;
  IF NEW.cover_url IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.cover_url IS DISTINCT FROM OLD.cover_url)
     AND NOT backline.own_media(NEW.cover_url, 'covers', NEW.artist_id) THEN
    RAISE EXCEPTION 'Upload the cover to your own folder first' USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER guard_track_media BEFORE INSERT OR UPDATE ON public.tracks
  FOR EACH ROW EXECUTE FUNCTION backline.guard_track_media();

REVOKE ALL ON FUNCTION backline.guard_track_media() FROM PUBLIC, anon, authenticated, service_role;
