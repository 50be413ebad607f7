-- The ledger-wide invariant: all wallets sum to zero, none but external
-- accounts is negative, and the users' wallets hold exactly the ledger's net
-- movement into user wallets. The admin's check on opening the transactions
-- page: a read of the sixteen running-total slots and of the system
-- accounts, whatever the size of the ledger. A wallet changed behind the
-- ledger's back (even by the owner) moves the wallet totals and not the
-- ledger's, so it shows as unbalanced.
CREATE OR REPLACE FUNCTION public.admin_ledger_summary() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  PERFORM backline.admin_actor();
  RETURN backline.ledger_summary_of(backline.ledger_state_running()) || jsonb_build_object('method', 'running totals');
END $$;

REVOKE ALL ON FUNCTION public.admin_ledger_summary() FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_ledger_summary() TO authenticated, service_role;
