-- A new active track tells the artist's followers, through the notifications
-- table (the bell's live badge): type system_update, data.kind new_release.
CREATE OR REPLACE FUNCTION backline.notify_followers() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  artist text := backline.display_name(NEW.artist_id);
BEGIN
  INSERT INTO public.notifications (user_id, type, title, message, data)
  SELECT f.follower_id, 'system_update', 'New release from ' || artist,
    artist || ' released "' || NEW.title || '"',
    jsonb_build_object('kind', 'new_release', 'track_id', NEW.id, 'artist_id', NEW.artist_id)
  FROM public.follows f
  WHERE f.artist_id = NEW.artist_id;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER notify_followers AFTER INSERT ON public.tracks
  FOR EACH ROW WHEN (NEW.status = 'active') EXECUTE FUNCTION backline.notify_followers();

REVOKE ALL ON FUNCTION backline.notify_followers() FROM PUBLIC, anon, authenticated, service_role;
