CREATE OR REPLACE FUNCTION backline.count_ledger_change() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  d_count int := 0;
  d_net numeric := 0;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    d_count := d_count - 1;
    d_net := d_net - backline.users_net_of(OLD.from_wallet, OLD.to_wallet, OLD.amount);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    d_count := d_count + 1;
    d_net := d_net + backline.users_net_of(NEW.from_wallet, NEW.to_wallet, NEW.amount);
  END IF;
  UPDATE backline.ledger_totals SET ledger_count = ledger_count + d_count, ledger_users_net = ledger_users_net + d_net
  WHERE slot = backline.ledger_totals_slot();
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS count_ledger_insert ON public.transactions;
CREATE CONSTRAINT TRIGGER count_ledger_insert AFTER INSERT ON public.transactions DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION backline.count_ledger_change();

DROP TRIGGER IF EXISTS count_ledger_update ON public.transactions;
CREATE CONSTRAINT TRIGGER count_ledger_update AFTER UPDATE ON public.transactions DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.amount IS DISTINCT FROM NEW.amount OR OLD.from_wallet IS DISTINCT FROM NEW.from_wallet
    OR OLD.to_wallet IS DISTINCT FROM NEW.to_wallet)
  EXECUTE FUNCTION backline.count_ledger_change();

DROP TRIGGER IF EXISTS count_ledger_delete ON public.transactions;
CREATE CONSTRAINT TRIGGER count_ledger_delete AFTER DELETE ON public.transactions DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION backline.count_ledger_change();

REVOKE ALL ON FUNCTION backline.count_ledger_change() FROM PUBLIC, anon, authenticated, service_role;
