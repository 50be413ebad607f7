-- A track added without a position goes last.
CREATE OR REPLACE FUNCTION backline.playlist_track_position() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF NEW.position IS NULL OR NEW.position <= 0 THEN
    SELECT coalesce(max(position), 0) + 1 INTO NEW.position FROM public.playlist_tracks WHERE playlist_id = NEW.playlist_id;
  END IF;
  NEW.added_at := now();
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER playlist_track_position BEFORE INSERT ON public.playlist_tracks
  FOR EACH ROW EXECUTE FUNCTION backline.playlist_track_position();

REVOKE ALL ON FUNCTION backline.playlist_track_position() FROM PUBLIC, anon, authenticated, service_role;
