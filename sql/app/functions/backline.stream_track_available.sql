-- Runs after stream_before_insert (triggers fire in name order): a stream of
-- a track hidden while it played does not count. The allowance its play used
-- stays used, as for any other refused stream.
CREATE OR REPLACE FUNCTION backline.stream_track_available() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_setting('role', true) IN ('anon', 'authenticated') AND NEW.is_valid
     AND NOT EXISTS (SELECT 1 FROM public.tracks WHERE id = NEW.track_id AND status = 'active') THEN
    NEW.is_valid := false;
    NEW.invalid_reason := 'Track is not available';
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER stream_track_available BEFORE INSERT ON public.streams
  FOR EACH ROW EXECUTE FUNCTION backline.stream_track_available();

REVOKE ALL ON FUNCTION backline.stream_track_available() FROM PUBLIC, anon, authenticated, service_role;
