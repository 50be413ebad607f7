-- Deletes one stored object's row from SQL, for the triggers that let go of
-- a file (a replaced avatar, a playlist's old cover, a deleted track's
-- media); storage's sweep then removes the bytes. Storage refuses a direct
-- DELETE on its objects unless storage.allow_delete_query is on, so it is
-- turned on for this statement only and put back as it was.
CREATE OR REPLACE FUNCTION backline.delete_media_object(p_bucket text, p_name text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  prior text := current_setting('storage.allow_delete_query', true);
BEGIN
  PERFORM set_config('storage.allow_delete_query', 'true', true);
  DELETE FROM storage.objects WHERE bucket_id = p_bucket AND name = p_name;
  PERFORM set_config('storage.allow_delete_query', coalesce(prior, 'false'), true);
END $$;

REVOKE ALL ON FUNCTION backline.delete_media_object(text, text) FROM PUBLIC, anon, authenticated, service_role;
