-- A playlist's cover in its owner's folder goes when the playlist lets it go
-- (a new cover, none, or the playlist deleted), unless a track or another
-- playlist shows it: the object row is deleted and storage's sweep removes
-- the bytes. In the database, so a client that never asks still frees it.
CREATE OR REPLACE FUNCTION backline.drop_playlist_cover() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  o record := backline.media_object(OLD.cover_url);
BEGIN
  IF to_regclass('storage.objects') IS NULL OR OLD.cover_url IS NULL
     OR (TG_OP = 'UPDATE' AND OLD.cover_url IS NOT DISTINCT FROM NEW.cover_url)
     OR o.bucket IS DISTINCT FROM 'covers' OR split_part(o.name, '/', 1) <> OLD.user_id::text
     OR EXISTS (SELECT 1 FROM public.playlists WHERE cover_url = OLD.cover_url)
     OR EXISTS (SELECT 1 FROM public.tracks WHERE cover_url = OLD.cover_url) THEN
    RETURN NULL;
  END IF;
  PERFORM backline.delete_media_object(o.bucket, o.name);
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER drop_playlist_cover AFTER DELETE OR UPDATE OF cover_url ON public.playlists
  FOR EACH ROW EXECUTE FUNCTION backline.drop_playlist_cover();

REVOKE ALL ON FUNCTION backline.drop_playlist_cover() FROM PUBLIC, anon, authenticated, service_role;
