-- A track's media in the artist's folder goes with it: when the row is
-- deleted, or points elsewhere, the object rows no other track uses are
-- deleted; storage's sweep then removes the bytes (see storage/README.md).
CREATE OR REPLACE FUNCTION backline.drop_track_media() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  url text;
  o record;
BEGIN
  IF to_regclass('storage.objects') IS NULL THEN
    RETURN NULL;
  END IF;
  FOREACH url IN ARRAY ARRAY[OLD.audio_url, OLD.cover_url] LOOP
    CONTINUE WHEN url IS NULL;
    CONTINUE WHEN TG_OP = 'UPDATE' AND url IN (coalesce(NEW.audio_url, ''), coalesce(NEW.cover_url, ''));
    o := backline.media_object(url);
    CONTINUE WHEN o.bucket IS NULL OR o.bucket NOT IN ('tracks', 'covers')
      OR split_part(o.name, '/', 1) <> OLD.artist_id::text;
    CONTINUE WHEN EXISTS (SELECT 1 FROM public.tracks WHERE audio_url = url OR cover_url = url);
    -- The artist's own playlist may show the same cover.
    CONTINUE WHEN EXISTS (SELECT 1 FROM public.playlists WHERE user_id = OLD.artist_id AND cover_url = url);
    PERFORM backline.delete_media_object(o.bucket, o.name);
  END LOOP;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER drop_track_media AFTER DELETE OR UPDATE OF audio_url, cover_url ON public.tracks
  FOR EACH ROW EXECUTE FUNCTION backline.drop_track_media();

REVOKE ALL ON FUNCTION backline.drop_track_media() FROM PUBLIC, anon, authenticated, service_role;
