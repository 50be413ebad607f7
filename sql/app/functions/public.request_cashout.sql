-- Cash-outs: an artist asks, the amount is held (moved to the hold account)
-- until an admin completes (paid out) or rejects (returned) the request.
-- The amount checks come first, then the bank details (a listed bank, a
-- 10-digit NUBAN, an account name). The wallet's row lock serialises two
-- requests of one artist, and the locks are taken in wallet-id order, as
-- transfer_funds takes them, so a request cannot deadlock against an admin
-- settling another.
CREATE OR REPLACE FUNCTION public.request_cashout(p_amount numeric, p_bank_name text DEFAULT NULL,
  p_account_number text DEFAULT NULL, p_account_name text DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  min_amount numeric := backline.setting_num('min_cashout');
  balance numeric;
  req public.cashout_requests;
  moved jsonb;
  v_bank text := btrim(coalesce(p_bank_name, ''));
  v_number text := btrim(coalesce(p_account_number, ''));
  v_name text := btrim(regexp_replace(coalesce(p_account_name, ''), '\s+', ' ', 'g'));
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'Authentication required' USING ERRCODE = 'P0001';
  END IF;
  PERFORM backline.require_active('Suspended accounts cannot request a cash-out');
  IF public.current_user_role() IS DISTINCT FROM 'artist' THEN
    RAISE EXCEPTION 'Only artists can request a cash-out' USING ERRCODE = 'P0001';
  END IF;
  IF NOT backline.is_naira(p_amount) OR p_amount <= 0 THEN
    RAISE EXCEPTION 'Enter a valid amount' USING ERRCODE = 'P0001';
  END IF;
  IF p_amount < min_amount THEN
    RAISE EXCEPTION 'Minimum cash-out amount is ₦%', backline.naira(min_amount) USING ERRCODE = 'P0001';
  END IF;
  -- Both wallets the hold touches, locked in id order as transfer_funds
  -- locks them: locking the artist's first would deadlock against an admin
  -- rejecting another of their requests (held account first, then theirs).
  PERFORM 1 FROM public.wallets WHERE id IN (uid, '00000000-0000-0000-0000-00000000c001') ORDER BY id FOR UPDATE;
  SELECT w.balance INTO balance FROM public.wallets w WHERE w.id = uid;
  IF balance IS NULL OR balance < p_amount THEN
    RAISE EXCEPTION 'Insufficient balance. Has ₦%, needs ₦%', backline.naira(coalesce(balance, 0)), backline.naira(p_amount)
      USING ERRCODE = 'P0001';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM public.banks WHERE name = v_bank) THEN
    RAISE EXCEPTION 'Choose your bank from the list' USING ERRCODE = 'P0001';
  END IF;
  IF v_number !~ '^[0-9]{10}$' THEN
    RAISE EXCEPTION 'Account number must be 10 digits' USING ERRCODE = 'P0001';
  END IF;
  IF length(v_name) < 3 OR length(v_name) > 100 THEN
    RAISE EXCEPTION 'Enter the account name' USING ERRCODE = 'P0001';
  END IF;
  INSERT INTO public.cashout_requests (user_id, amount, bank_name, account_number, account_name)
  VALUES (uid, p_amount, v_bank, v_number, v_name)
  RETURNING * INTO req;
  moved := public.transfer_funds(uid, '00000000-0000-0000-0000-00000000c001', p_amount, 'cashout-hold:' || req.id,
    'cashout_hold', NULL, NULL, jsonb_build_object('cashout_id', req.id));
  UPDATE public.cashout_requests SET hold_transaction_id = (moved ->> 'transaction_id')::uuid WHERE id = req.id;
  PERFORM backline.notify(uid, 'cashout_submitted', 'Cash-out Requested',
    format('Your cash-out request of ₦%s has been submitted and is awaiting review.', backline.naira(p_amount)),
    jsonb_build_object('amount', p_amount, 'cashout_id', req.id));
  PERFORM backline.log_activity(uid, 'cashout.requested', 'cashout', req.id::text, jsonb_build_object('amount', p_amount));
  RETURN jsonb_build_object('success', true, 'id', req.id, 'amount', p_amount, 'status', 'pending',
    'balance', moved -> 'from_balance');
END $$;

REVOKE ALL ON FUNCTION public.request_cashout(numeric, text, text, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.request_cashout(numeric, text, text, text) TO authenticated, service_role;
