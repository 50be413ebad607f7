CREATE OR REPLACE FUNCTION backline.count_wallet_change() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  d_total numeric := 0;
  d_users numeric := 0;
  d_negative int := 0;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    d_total := d_total - OLD.balance;
    d_users := d_users - CASE WHEN OLD.kind = 'user' THEN OLD.balance ELSE 0 END;
    d_negative := d_negative - (OLD.kind <> 'external' AND OLD.balance < 0)::int;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    d_total := d_total + NEW.balance;
    d_users := d_users + CASE WHEN NEW.kind = 'user' THEN NEW.balance ELSE 0 END;
    d_negative := d_negative + (NEW.kind <> 'external' AND NEW.balance < 0)::int;
  END IF;
  UPDATE backline.ledger_totals SET wallets_total = wallets_total + d_total, wallets_users = wallets_users + d_users,
    wallets_negative = wallets_negative + d_negative
  WHERE slot = backline.ledger_totals_slot();
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS count_wallet_insert ON public.wallets;
CREATE CONSTRAINT TRIGGER count_wallet_insert AFTER INSERT ON public.wallets DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.balance <> 0) EXECUTE FUNCTION backline.count_wallet_change();

DROP TRIGGER IF EXISTS count_wallet_update ON public.wallets;
CREATE CONSTRAINT TRIGGER count_wallet_update AFTER UPDATE ON public.wallets DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.balance IS DISTINCT FROM NEW.balance OR OLD.kind IS DISTINCT FROM NEW.kind)
  EXECUTE FUNCTION backline.count_wallet_change();

DROP TRIGGER IF EXISTS count_wallet_delete ON public.wallets;
CREATE CONSTRAINT TRIGGER count_wallet_delete AFTER DELETE ON public.wallets DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.balance <> 0) EXECUTE FUNCTION backline.count_wallet_change();

REVOKE ALL ON FUNCTION backline.count_wallet_change() FROM PUBLIC, anon, authenticated, service_role;
