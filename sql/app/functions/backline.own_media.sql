-- True when url names an object in bucket, inside owner's folder, that exists.
CREATE OR REPLACE FUNCTION backline.own_media(p_url text, p_bucket text, p_owner uuid) RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE o record := backline.media_object(p_url);
BEGIN
  IF o.bucket IS DISTINCT FROM p_bucket OR split_part(o.name, '/', 1) <> p_owner::text
     OR o.name LIKE '%/%/%' OR o.name LIKE '%..%' THEN
    RETURN false;
  END IF;
  IF to_regclass('storage.objects') IS NULL THEN
    RETURN true;
  END IF;
  RETURN EXISTS (SELECT 1 FROM storage.objects WHERE bucket_id = o.bucket AND objects.name = o.name);
END $$;

REVOKE ALL ON FUNCTION backline.own_media(text, text, uuid) FROM PUBLIC, anon, authenticated, service_role;
