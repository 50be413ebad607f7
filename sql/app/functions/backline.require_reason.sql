-- A reason an action must carry: trimmed, at most 500 characters.
CREATE OR REPLACE FUNCTION backline.require_reason(p_reason text) RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF coalesce(btrim(p_reason), '') = '' THEN
    RAISE EXCEPTION 'A reason is required' USING ERRCODE = 'P0001';
  END IF;
  RETURN left(btrim(p_reason), 500);
END $$;

REVOKE ALL ON FUNCTION backline.require_reason(text) FROM PUBLIC, anon, authenticated, service_role;
