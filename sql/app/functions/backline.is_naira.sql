-- Whether p is a naira amount: a finite number with at most two decimals.
-- numeric also holds NaN and the infinities, which pass every comparison a
-- caller would write (NaN is above every number, Infinity above the
-- minimum), so each money function asks this first.
CREATE OR REPLACE FUNCTION backline.is_naira(p numeric) RETURNS boolean
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT p IS NOT NULL AND p NOT IN ('NaN', 'Infinity', '-Infinity') AND p = round(p, 2)
$$;

REVOKE ALL ON FUNCTION backline.is_naira(numeric) FROM PUBLIC, anon, authenticated, service_role;
