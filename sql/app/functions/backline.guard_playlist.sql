-- A new playlist is the caller's (the policy) and one of at most
-- playlists_per_user; its name is trimmed (the table's check refuses an
-- empty or over-long one).
CREATE OR REPLACE FUNCTION backline.guard_playlist() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.active_uid();
BEGIN
  NEW.name := btrim(NEW.name);
  -- A cover is an image the owner uploaded into their folder of covers.
  IF NEW.cover_url IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.cover_url IS DISTINCT FROM OLD.cover_url)
     AND current_setting('role', true) IN ('anon', 'authenticated')
     AND NOT backline.own_media(NEW.cover_url, 'covers', NEW.user_id) THEN
    RAISE EXCEPTION 'Upload the cover to your own folder first' USING ERRCODE = 'P0001';
  END IF;
  IF current_setting('role', true) NOT IN ('anon', 'authenticated') OR TG_OP <> 'INSERT' OR NEW.user_id IS DISTINCT FROM uid THEN
    RETURN NEW;
  END IF;
  PERFORM backline.lock_key('playlists:' || uid);
  IF (SELECT count(*) FROM public.playlists WHERE user_id = uid) >= backline.setting_num('playlists_per_user') THEN
    RAISE EXCEPTION 'You can keep at most % playlists', backline.setting_num('playlists_per_user')::int USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER guard_playlist BEFORE INSERT OR UPDATE OF name, cover_url ON public.playlists
  FOR EACH ROW EXECUTE FUNCTION backline.guard_playlist();

REVOKE ALL ON FUNCTION backline.guard_playlist() FROM PUBLIC, anon, authenticated, service_role;
