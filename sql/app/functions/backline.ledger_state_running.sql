CREATE OR REPLACE FUNCTION backline.ledger_state_running() RETURNS backline.ledger_state
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT ROW(sum(wallets_total), sum(wallets_users), sum(wallets_negative)::bigint, sum(ledger_count)::bigint,
    sum(ledger_users_net))::backline.ledger_state
  FROM backline.ledger_totals
$$;

REVOKE ALL ON FUNCTION backline.ledger_state_running() FROM PUBLIC, anon, authenticated, service_role;
