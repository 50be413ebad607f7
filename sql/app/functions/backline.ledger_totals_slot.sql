CREATE OR REPLACE FUNCTION backline.ledger_totals_slot() RETURNS smallint
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT (pg_backend_pid() % 16)::smallint
$$;

REVOKE ALL ON FUNCTION backline.ledger_totals_slot() FROM PUBLIC, anon, authenticated, service_role;
