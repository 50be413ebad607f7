-- Credits (positive) or debits (negative) a user's wallet, with a reason,
-- through the ledger. A debit cannot overdraw the wallet.
CREATE OR REPLACE FUNCTION public.admin_adjust_wallet(p_user_id uuid, p_amount numeric, p_reason text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  v_reason text := backline.require_reason(p_reason);
  adjustments uuid := '00000000-0000-0000-0000-00000000a001';
  before numeric;
  moved jsonb;
  ref text := 'adjustment:' || gen_random_uuid();
BEGIN
  IF NOT backline.is_naira(p_amount) OR p_amount = 0 OR abs(p_amount) > 10000000 THEN
    RAISE EXCEPTION 'Enter a non-zero amount of at most ₦10,000,000 with at most two decimals' USING ERRCODE = 'P0001';
  END IF;
  SELECT balance INTO before FROM public.wallets WHERE id = p_user_id AND kind = 'user';
  IF before IS NULL THEN
    RAISE EXCEPTION 'Wallet not found' USING ERRCODE = 'P0001';
  END IF;
  BEGIN
    IF p_amount > 0 THEN
      moved := public.transfer_funds(adjustments, p_user_id, p_amount, ref, 'adjustment', NULL, NULL,
        jsonb_build_object('reason', v_reason, 'admin_id', actor));
    ELSE
      moved := public.transfer_funds(p_user_id, adjustments, -p_amount, ref, 'adjustment', NULL, NULL,
        jsonb_build_object('reason', v_reason, 'admin_id', actor));
    END IF;
  EXCEPTION WHEN SQLSTATE 'P0001' THEN
    RAISE EXCEPTION 'Insufficient balance. Has ₦%, cannot debit ₦%', backline.naira(before), backline.naira(-p_amount)
      USING ERRCODE = 'P0001';
  END;
  PERFORM backline.audit(actor, 'wallet.adjust', 'wallet', p_user_id::text, v_reason,
    jsonb_build_object('balance', before),
    jsonb_build_object('balance', CASE WHEN p_amount > 0 THEN moved -> 'to_balance' ELSE moved -> 'from_balance' END,
      'amount', p_amount, 'reference', ref, 'transaction_id', moved -> 'transaction_id'));
  PERFORM backline.notify(p_user_id, 'system_update', 'Wallet adjusted',
    format('Your wallet was %s ₦%s: %s', CASE WHEN p_amount > 0 THEN 'credited' ELSE 'debited' END,
      backline.naira(abs(p_amount)), v_reason), jsonb_build_object('amount', p_amount, 'reference', ref));
  RETURN jsonb_build_object('success', true, 'reference', ref, 'amount', p_amount,
    'balance', CASE WHEN p_amount > 0 THEN moved -> 'to_balance' ELSE moved -> 'from_balance' END);
END $$;

REVOKE ALL ON FUNCTION public.admin_adjust_wallet(uuid, numeric, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_adjust_wallet(uuid, numeric, text) TO authenticated, service_role;
