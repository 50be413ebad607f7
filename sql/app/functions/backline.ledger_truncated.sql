CREATE OR REPLACE FUNCTION backline.ledger_truncated() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  PERFORM backline.reset_ledger_totals();
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER ledger_totals_truncate AFTER TRUNCATE ON public.wallets
  FOR EACH STATEMENT EXECUTE FUNCTION backline.ledger_truncated();

CREATE OR REPLACE TRIGGER ledger_totals_truncate AFTER TRUNCATE ON public.transactions
  FOR EACH STATEMENT EXECUTE FUNCTION backline.ledger_truncated();

REVOKE ALL ON FUNCTION backline.ledger_truncated() FROM PUBLIC, anon, authenticated, service_role;
