-- The one function that moves money. It takes a transaction lock on the
-- reference, locks both wallets in a fixed order (by id), refuses to
-- overdraw a non-external account, writes the ledger row and both balances
-- in one transaction, and is idempotent per reference. Every other money
-- function decides whether to call it. Because each movement debits one
-- account and credits another, the sum of all wallets (users, the cash-out
-- hold, and the external provider and payout accounts) is zero, always:
-- what users hold plus what is held or paid out equals what came in.
--
-- Business refusals that a caller shows to the user are raised as P0001
-- with the message to show, or returned as {success: false, ...} where the
-- spec defines a result shape.
CREATE OR REPLACE FUNCTION public.transfer_funds(p_from uuid, p_to uuid, p_amount numeric, p_reference text, p_kind text,
  p_stream_id uuid DEFAULT NULL, p_track_id uuid DEFAULT NULL, p_metadata jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  w_from public.wallets;
  w_to public.wallets;
  prior public.transactions;
  tx_row public.transactions;
BEGIN
  IF NOT backline.is_naira(p_amount) OR p_amount <= 0 THEN
    RAISE EXCEPTION 'amount must be a positive naira amount with at most two decimals' USING ERRCODE = '22023';
  END IF;
  IF coalesce(btrim(p_reference), '') = '' OR length(p_reference) > 200 THEN
    RAISE EXCEPTION 'reference is required (at most 200 characters)' USING ERRCODE = '22023';
  END IF;
  IF p_from IS NULL OR p_to IS NULL OR p_from = p_to THEN
    RAISE EXCEPTION 'transfer needs two different wallets' USING ERRCODE = '22023';
  END IF;

  -- Same reference at the same time: the second waits, then sees the first.
  PERFORM backline.lock_key('ref:' || p_reference);
  -- Fixed order: lower id first, so two transfers over the same pair in
  -- opposite directions cannot deadlock.
  IF p_from < p_to THEN
    SELECT * INTO w_from FROM public.wallets WHERE id = p_from FOR UPDATE;
    SELECT * INTO w_to FROM public.wallets WHERE id = p_to FOR UPDATE;
  ELSE
    SELECT * INTO w_to FROM public.wallets WHERE id = p_to FOR UPDATE;
    SELECT * INTO w_from FROM public.wallets WHERE id = p_from FOR UPDATE;
  END IF;
  IF w_from.id IS NULL OR w_to.id IS NULL THEN
    RAISE EXCEPTION 'wallet not found' USING ERRCODE = 'P0002';
  END IF;

  SELECT * INTO prior FROM public.transactions WHERE reference = p_reference;
  IF FOUND THEN
    IF prior.from_wallet <> p_from OR prior.to_wallet <> p_to OR prior.amount <> p_amount THEN
      RAISE EXCEPTION 'reference % was already used for a different transfer', p_reference USING ERRCODE = '23505';
    END IF;
    RETURN jsonb_build_object('success', true, 'already_processed', true, 'transaction_id', prior.id,
      'amount', prior.amount, 'from_balance', prior.from_balance_after, 'to_balance', prior.to_balance_after);
  END IF;

  IF w_from.kind <> 'external' AND w_from.balance < p_amount THEN
    RAISE EXCEPTION 'insufficient funds: has %, needs %', trim_scale(w_from.balance), trim_scale(p_amount)
      USING ERRCODE = 'P0001', HINT = 'insufficient_funds';
  END IF;

  UPDATE public.wallets SET balance = balance - p_amount WHERE id = p_from RETURNING balance INTO w_from.balance;
  UPDATE public.wallets SET balance = balance + p_amount WHERE id = p_to RETURNING balance INTO w_to.balance;
  INSERT INTO public.transactions (reference, kind, from_wallet, to_wallet, amount, from_balance_after,
    to_balance_after, stream_id, track_id, metadata)
  VALUES (p_reference, p_kind, p_from, p_to, p_amount, w_from.balance, w_to.balance, p_stream_id, p_track_id,
    coalesce(p_metadata, '{}'))
  RETURNING * INTO tx_row;
  RETURN jsonb_build_object('success', true, 'already_processed', false, 'transaction_id', tx_row.id,
    'amount', tx_row.amount, 'from_balance', tx_row.from_balance_after, 'to_balance', tx_row.to_balance_after);
END $$;

REVOKE ALL ON FUNCTION public.transfer_funds(uuid, uuid, numeric, text, text, uuid, uuid, jsonb) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.transfer_funds(uuid, uuid, numeric, text, text, uuid, uuid, jsonb) TO service_role;
