-- A profile photo is the user's own upload: an end user sets avatar_url (on
-- public_profiles, or on their artist or sponsor profile) to NULL or to an
-- object in their folder of the avatars bucket, which the storage policies
-- keep to images of at most 5 MB; a photo set at sign-up by an identity
-- provider stays until it is replaced. Admins and the platform's roles pass.
CREATE OR REPLACE FUNCTION backline.guard_avatar() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_setting('role', true) NOT IN ('anon', 'authenticated') OR public.is_admin() THEN
    RETURN NEW;
  END IF;
  IF NEW.avatar_url IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.avatar_url IS DISTINCT FROM OLD.avatar_url)
     AND NOT backline.own_media(NEW.avatar_url, 'avatars', NEW.id) THEN
    RAISE EXCEPTION 'Upload the photo to your own folder first' USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER guard_avatar BEFORE INSERT OR UPDATE OF avatar_url ON public.public_profiles
  FOR EACH ROW EXECUTE FUNCTION backline.guard_avatar();
CREATE OR REPLACE TRIGGER guard_avatar BEFORE INSERT OR UPDATE OF avatar_url ON public.artist_profiles
  FOR EACH ROW EXECUTE FUNCTION backline.guard_avatar();
CREATE OR REPLACE TRIGGER guard_avatar BEFORE INSERT OR UPDATE OF avatar_url ON public.sponsor_profiles
  FOR EACH ROW EXECUTE FUNCTION backline.guard_avatar();

REVOKE ALL ON FUNCTION backline.guard_avatar() FROM PUBLIC, anon, authenticated, service_role;
