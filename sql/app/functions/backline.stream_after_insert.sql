-- Counters follow valid streams: one increment per valid stream, in the
-- same transaction, so they can never drift from the rows.
CREATE OR REPLACE FUNCTION backline.stream_after_insert() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE artist uuid;
BEGIN
  IF NEW.is_valid THEN
    UPDATE public.tracks SET streams = streams + 1 WHERE id = NEW.track_id RETURNING artist_id INTO artist;
    UPDATE public.artist_profiles SET stream_count = stream_count + 1 WHERE id = artist;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER stream_after_insert AFTER INSERT ON public.streams
  FOR EACH ROW EXECUTE FUNCTION backline.stream_after_insert();

REVOKE ALL ON FUNCTION backline.stream_after_insert() FROM PUBLIC, anon, authenticated, service_role;
