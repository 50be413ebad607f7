-- Operator/seed helper: money entering from outside (the seed's provider
-- account), recorded in the ledger like any top-up.
CREATE OR REPLACE FUNCTION backline.fund_wallet(p_user_id uuid, p_amount numeric, p_reference text) RETURNS jsonb
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT public.transfer_funds('00000000-0000-0000-0000-00000000f004', p_user_id, p_amount, p_reference, 'topup')
$$;

REVOKE ALL ON FUNCTION backline.fund_wallet(uuid, numeric, text) FROM PUBLIC, anon, authenticated, service_role;
