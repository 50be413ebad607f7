-- An artist's follower count follows the follows rows, in the follow's own
-- transaction (the rows are private; the count is public).
CREATE OR REPLACE FUNCTION backline.count_followers() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE public.artist_profiles SET follower_count = follower_count + 1 WHERE id = NEW.artist_id;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE public.artist_profiles SET follower_count = greatest(follower_count - 1, 0) WHERE id = OLD.artist_id;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER count_followers AFTER INSERT OR DELETE ON public.follows
  FOR EACH ROW EXECUTE FUNCTION backline.count_followers();

REVOKE ALL ON FUNCTION backline.count_followers() FROM PUBLIC, anon, authenticated, service_role;
