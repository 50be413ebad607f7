CREATE OR REPLACE FUNCTION backline.page_size(p_limit integer) RETURNS integer
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT least(greatest(coalesce(p_limit, 50), 1), 200)
$$;

REVOKE ALL ON FUNCTION backline.page_size(integer) FROM PUBLIC, anon, authenticated, service_role;
