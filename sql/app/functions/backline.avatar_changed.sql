-- A new profile photo is the user's photo everywhere: the artist or sponsor
-- profile shows the same one, and the previous upload in the user's avatars
-- folder, no longer used, is deleted (storage's sweep removes the bytes), so
-- replacing a photo does not pile up files.
CREATE OR REPLACE FUNCTION backline.avatar_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  o record := backline.media_object(OLD.avatar_url);
BEGIN
  UPDATE public.artist_profiles SET avatar_url = NEW.avatar_url WHERE id = NEW.id AND avatar_url IS DISTINCT FROM NEW.avatar_url;
  UPDATE public.sponsor_profiles SET avatar_url = NEW.avatar_url WHERE id = NEW.id AND avatar_url IS DISTINCT FROM NEW.avatar_url;
  IF o.bucket = 'avatars' AND split_part(o.name, '/', 1) = OLD.id::text AND to_regclass('storage.objects') IS NOT NULL THEN
    PERFORM backline.delete_media_object('avatars', o.name);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER avatar_changed AFTER UPDATE OF avatar_url ON public.public_profiles
  FOR EACH ROW WHEN (OLD.avatar_url IS DISTINCT FROM NEW.avatar_url) EXECUTE FUNCTION backline.avatar_changed();

REVOKE ALL ON FUNCTION backline.avatar_changed() FROM PUBLIC, anon, authenticated, service_role;
