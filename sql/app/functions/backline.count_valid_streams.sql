-- The stream counters (tracks.streams, artist_profiles.stream_count) are the
-- number of valid streams, kept by this trigger in the transaction that
-- changes a stream: +1 for a valid stream inserted, -1 for one deleted, and
-- the move when the owner flips is_valid or changes the track. The streams of
-- a deleted track leave its artist's count in backline.count_tracks. Nothing
-- else writes the counters (the guards keep them out of API users' reach), so
-- they never need a recount.
CREATE OR REPLACE FUNCTION backline.count_valid_streams() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE artist uuid;
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.is_valid = NEW.is_valid AND OLD.track_id = NEW.track_id THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.is_valid THEN
    UPDATE public.tracks SET streams = streams - 1 WHERE id = OLD.track_id RETURNING artist_id INTO artist;
    UPDATE public.artist_profiles SET stream_count = stream_count - 1 WHERE id = artist;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.is_valid THEN
    UPDATE public.tracks SET streams = streams + 1 WHERE id = NEW.track_id RETURNING artist_id INTO artist;
    UPDATE public.artist_profiles SET stream_count = stream_count + 1 WHERE id = artist;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER count_valid_streams AFTER INSERT OR DELETE OR UPDATE OF is_valid, track_id ON public.streams
  FOR EACH ROW EXECUTE FUNCTION backline.count_valid_streams();

REVOKE ALL ON FUNCTION backline.count_valid_streams() FROM PUBLIC, anon, authenticated, service_role;
