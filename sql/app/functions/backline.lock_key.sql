-- Per-user and per-(track, IP) transaction locks serialise the checks that
-- count streams, so concurrent inserts cannot both slip under a limit.
CREATE OR REPLACE FUNCTION backline.lock_key(p_text text) RETURNS void
LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$
  SELECT pg_advisory_xact_lock(hashtextextended(p_text, 0))
$$;

REVOKE ALL ON FUNCTION backline.lock_key(text) FROM PUBLIC, anon, authenticated, service_role;
