-- The day a fan's allowance belongs to: Nigerian local date.
CREATE OR REPLACE FUNCTION backline.today() RETURNS date
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT (now() AT TIME ZONE 'Africa/Lagos')::date
$$;

REVOKE ALL ON FUNCTION backline.today() FROM PUBLIC, anon, authenticated, service_role;
