-- Track media. A public storage URL as the app stores it, split into bucket
-- and object name; NULL for anything else.
CREATE OR REPLACE FUNCTION backline.media_object(p_url text, OUT bucket text, OUT name text)
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT m[1], m[2] FROM regexp_match(coalesce(p_url, ''),
    '^(?:https?://[^/]+)?/storage/v1/object/public/([a-z0-9_-]+)/([^?#]+)$') AS m
$$;

REVOKE ALL ON FUNCTION backline.media_object(text) FROM PUBLIC, anon, authenticated, service_role;
