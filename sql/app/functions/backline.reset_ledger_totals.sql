-- Sets the totals from the tables: after a bulk load with triggers off, or
-- a TRUNCATE. The table lock waits for transactions adding to a slot and
-- holds new ones back until this one ends, so none is counted twice or lost.
CREATE OR REPLACE FUNCTION backline.reset_ledger_totals() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE f backline.ledger_state;
BEGIN
  LOCK TABLE backline.ledger_totals IN EXCLUSIVE MODE;
  f := backline.ledger_state_recount();
  UPDATE backline.ledger_totals SET wallets_total = 0, wallets_users = 0, wallets_negative = 0, ledger_count = 0,
    ledger_users_net = 0 WHERE slot <> 0;
  UPDATE backline.ledger_totals SET wallets_total = f.wallets_total, wallets_users = f.wallets_users,
    wallets_negative = f.wallets_negative, ledger_count = f.ledger_count, ledger_users_net = f.ledger_users_net
  WHERE slot = 0;
END $$;

REVOKE ALL ON FUNCTION backline.reset_ledger_totals() FROM PUBLIC, anon, authenticated, service_role;
