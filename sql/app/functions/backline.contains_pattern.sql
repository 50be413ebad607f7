-- A LIKE pattern matching p_text anywhere, with the caller's % and _ taken
-- literally.
CREATE OR REPLACE FUNCTION backline.contains_pattern(p_text text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT '%' || replace(replace(replace(lower(btrim(p_text)), '\', '\\'), '%', '\%'), '_', '\_') || '%'
$$;

REVOKE ALL ON FUNCTION backline.contains_pattern(text) FROM PUBLIC, anon, authenticated, service_role;
