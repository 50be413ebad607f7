-- track_count follows the artist's tracks, and the artist's stream_count
-- loses a deleted track's streams (or moves them with the track).
CREATE OR REPLACE FUNCTION backline.count_tracks() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE public.artist_profiles SET track_count = (SELECT count(*) FROM public.tracks WHERE artist_id = NEW.artist_id)
    WHERE id = NEW.artist_id;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') AND (TG_OP = 'DELETE' OR OLD.artist_id IS DISTINCT FROM NEW.artist_id) THEN
    UPDATE public.artist_profiles SET track_count = (SELECT count(*) FROM public.tracks WHERE artist_id = OLD.artist_id)
    WHERE id = OLD.artist_id;
  END IF;
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.artist_id IS DISTINCT FROM NEW.artist_id) THEN
    UPDATE public.artist_profiles SET stream_count = stream_count - OLD.streams WHERE id = OLD.artist_id;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.artist_id IS DISTINCT FROM NEW.artist_id THEN
    UPDATE public.artist_profiles SET stream_count = stream_count + NEW.streams WHERE id = NEW.artist_id;
  END IF;
  IF TG_OP = 'INSERT' THEN
    PERFORM backline.log_activity(auth.uid(), 'track.created', 'track', NEW.id::text, jsonb_build_object('title', NEW.title));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM backline.log_activity(auth.uid(), 'track.deleted', 'track', OLD.id::text, jsonb_build_object('title', OLD.title));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER count_tracks AFTER INSERT OR DELETE OR UPDATE OF artist_id ON public.tracks
  FOR EACH ROW EXECUTE FUNCTION backline.count_tracks();

REVOKE ALL ON FUNCTION backline.count_tracks() FROM PUBLIC, anon, authenticated, service_role;
