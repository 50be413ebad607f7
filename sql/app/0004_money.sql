-- Money: the one function that moves it, sponsored-stream settlement, card
-- payments, cash-outs, and sponsorship invites.
--
-- transfer_funds is the only code that changes a balance. It takes a
-- transaction lock on the reference, locks both wallets in a fixed order (by
-- id), refuses to overdraw a non-external account, writes the ledger row and
-- both balances in one transaction, and is idempotent per reference. Every
-- other function here decides whether to call it. Because each movement
-- debits one account and credits another, the sum of all wallets (users,
-- the cash-out hold, and the external provider and payout accounts) is zero,
-- always: what users hold plus what is held or paid out equals what came in.
--
-- Business refusals that a caller shows to the user are raised as P0001
-- with the message to show, or returned as {success: false, ...} where the
-- spec defines a result shape.

-- Naira for messages: thousands separators, kobo only when there are any.
CREATE FUNCTION backline.naira(p_amount numeric) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT rtrim(rtrim(to_char(p_amount, 'FM999,999,999,990.00'), '0'), '.')
$$;

CREATE FUNCTION public.transfer_funds(p_from uuid, p_to uuid, p_amount numeric, p_reference text, p_kind text,
  p_stream_id uuid DEFAULT NULL, p_track_id uuid DEFAULT NULL, p_metadata jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  w_from public.wallets;
  w_to public.wallets;
  prior public.transactions;
  tx_row public.transactions;
BEGIN
  IF p_amount IS NULL OR p_amount <= 0 OR p_amount <> round(p_amount, 2) THEN
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

-- Operator/seed helper: money entering from outside (the seed's provider
-- account), recorded in the ledger like any top-up.
CREATE FUNCTION backline.fund_wallet(p_user_id uuid, p_amount numeric, p_reference text) RETURNS jsonb
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT public.transfer_funds('00000000-0000-0000-0000-00000000f004', p_user_id, p_amount, p_reference, 'topup')
$$;

-- ---------------------------------------------------------------------------
-- Sponsored-stream settlement.

CREATE FUNCTION backline.settlement_failure(p_error text) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('success', false, 'error', p_error, 'transaction', NULL)
$$;

-- The eligibility rules of spec section 5, in order, for the caller's most
-- recent valid, unpaid stream of the artist's track (preferring one the
-- sponsor sponsors), then the transfer. Runs inside settle_sponsored_stream.
CREATE FUNCTION backline.settle_stream(p_uid uuid, p_artist_id uuid, p_sponsor_id uuid, p_reference text,
  p_amount numeric)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  amount numeric := backline.setting_num('stream_payment_amount');
  win interval := make_interval(mins => backline.setting_num('settlement_window_minutes')::int);
  dup_max int := backline.setting_num('duplicate_limit_per_ip')::int;
  dup_hours int := backline.setting_num('duplicate_window_hours')::int;
  per_hour int := backline.setting_num('velocity_per_hour')::int;
  per_day int := backline.setting_num('velocity_per_day')::int;
  s record;
  fraud jsonb;
  n int;
  sponsor_balance numeric;
  moved jsonb;
BEGIN
  IF p_amount IS NULL OR p_amount <> amount THEN
    RETURN backline.settlement_failure(format('Invalid payment amount: expected %s', trim_scale(amount)));
  END IF;
  -- 1. The listener must not be the artist.
  IF p_uid = p_artist_id THEN
    RETURN backline.settlement_failure('Artist cannot stream own tracks for payment');
  END IF;

  -- 2. The stream and its track. The row lock makes a stream payable once:
  -- a concurrent settlement that paid it first makes the recheck skip it.
  SELECT st.id, st.track_id, st.ip_address, t.artist_id, t.sponsor_id, t.is_sponsored INTO s
  FROM public.streams st JOIN public.tracks t ON t.id = st.track_id
  WHERE st.user_id = p_uid AND st.is_valid AND st.paid_reference IS NULL AND st.created_at > now() - win
  ORDER BY (t.artist_id = p_artist_id) DESC, (t.sponsor_id = p_sponsor_id AND t.is_sponsored) DESC, st.created_at DESC
  LIMIT 1
  FOR UPDATE OF st;
  IF NOT FOUND THEN
    RETURN backline.settlement_failure('Track not found');
  END IF;
  IF s.artist_id <> p_artist_id THEN
    RETURN backline.settlement_failure('Artist ID mismatch');
  END IF;
  IF NOT s.is_sponsored OR s.sponsor_id IS NULL THEN
    RETURN backline.settlement_failure('Track is not sponsored');
  END IF;

  -- 3. Fraud: a check that cannot run pays nothing.
  BEGIN
    fraud := backline.assess_fraud(p_uid, s.track_id, backline.latest_fingerprint(p_uid), s.ip_address);
  EXCEPTION WHEN OTHERS THEN
    RETURN backline.settlement_failure('Fraud detection system error');
  END;
  IF fraud IS NULL THEN
    RETURN backline.settlement_failure('Fraud detection system error');
  END IF;
  IF fraud ->> 'recommendation' = 'block' THEN
    RETURN backline.settlement_failure(format('Stream blocked due to %s fraud risk: %s', fraud ->> 'risk_level',
      array_to_string(ARRAY(SELECT jsonb_array_elements_text(fraud -> 'fraud_reasons')), ', ')));
  END IF;

  -- 4. Duplicates: per IP, or per user when the address is unknown.
  IF s.ip_address IS NOT NULL THEN
    SELECT count(*) INTO n FROM public.streams
    WHERE track_id = s.track_id AND ip_address = s.ip_address AND is_valid
      AND created_at > now() - make_interval(hours => dup_hours);
  ELSE
    SELECT count(*) INTO n FROM public.streams
    WHERE track_id = s.track_id AND user_id = p_uid AND is_valid
      AND created_at > now() - make_interval(hours => dup_hours);
  END IF;
  IF n > dup_max THEN
    RETURN backline.settlement_failure(format(
      'This track has been streamed %s times from your location in %s hours (max: %s)', n, dup_hours, dup_max));
  END IF;

  -- 5. Velocity.
  SELECT count(*) INTO n FROM public.streams
  WHERE user_id = p_uid AND is_valid AND created_at > now() - interval '1 hour';
  IF n > per_hour THEN
    RETURN backline.settlement_failure(format('Too many streams (%s) in the last hour. Maximum allowed: %s/hour', n, per_hour));
  END IF;
  SELECT count(*) INTO n FROM public.streams
  WHERE user_id = p_uid AND is_valid AND created_at > now() - interval '24 hours';
  IF n > per_day THEN
    RETURN backline.settlement_failure(format('Too many streams (%s) in the last 24 hours. Maximum allowed: %s/day', n, per_day));
  END IF;

  -- 6. The relationship: this sponsor sponsors this track (an accepted invite
  -- for another track does not make someone else's sponsorship payable).
  IF s.sponsor_id <> p_sponsor_id OR NOT public.check_active_sponsorship(p_artist_id, p_sponsor_id) THEN
    RETURN backline.settlement_failure('No active sponsorship relationship found');
  END IF;

  -- 7. The sponsor's balance, read under the same locks transfer_funds takes
  -- (reference first, then both wallets by id), so the check holds.
  PERFORM backline.lock_key('ref:' || p_reference);
  PERFORM 1 FROM public.wallets WHERE id IN (p_artist_id, p_sponsor_id) ORDER BY id FOR UPDATE;
  SELECT balance INTO sponsor_balance FROM public.wallets WHERE id = p_sponsor_id AND kind = 'user';
  IF sponsor_balance IS NULL THEN
    RETURN backline.settlement_failure('Cannot verify sponsor wallet');
  END IF;
  IF sponsor_balance < amount THEN
    RETURN backline.settlement_failure(format('Insufficient sponsor balance. Has %s, needs %s',
      trim_scale(sponsor_balance), trim_scale(amount)));
  END IF;

  moved := public.transfer_funds(p_sponsor_id, p_artist_id, amount, p_reference, 'sponsored_stream', s.id, s.track_id,
    jsonb_build_object('listener_id', p_uid));
  UPDATE public.streams SET paid_reference = p_reference WHERE id = s.id;
  PERFORM backline.log_activity(p_uid, 'payment.sponsored_stream', 'stream', s.id::text,
    jsonb_build_object('reference', p_reference, 'amount', amount, 'artist_id', p_artist_id, 'sponsor_id', p_sponsor_id));
  RETURN jsonb_build_object('success', true, 'error', NULL, 'transaction', jsonb_build_object(
    'amount', amount, 'artist_balance', moved -> 'to_balance', 'sponsor_balance', moved -> 'from_balance'));
END $$;

-- Called as the listener (transfer-payment runs it with the caller's
-- claims). The first result for a reference is kept: the same reference
-- again returns it and moves nothing. Any unexpected error pays nothing.
CREATE FUNCTION public.settle_sponsored_stream(p_artist_id uuid, p_sponsor_id uuid, p_reference text, p_amount numeric)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  prior public.stream_settlements;
  v_result jsonb;
BEGIN
  IF uid IS NULL THEN
    RETURN backline.settlement_failure('Authentication required');
  END IF;
  IF p_artist_id IS NULL OR p_sponsor_id IS NULL THEN
    RETURN backline.settlement_failure('artist_id and sponsor_id are required');
  END IF;
  IF coalesce(btrim(p_reference), '') = '' OR length(p_reference) > 200 THEN
    RETURN backline.settlement_failure('A payment reference is required');
  END IF;

  -- Claim the reference; a concurrent call with it waits here for the first.
  INSERT INTO public.stream_settlements (reference, user_id) VALUES (p_reference, uid)
  ON CONFLICT (reference) DO NOTHING;
  IF NOT FOUND THEN
    SELECT * INTO prior FROM public.stream_settlements WHERE reference = p_reference;
    IF prior.user_id <> uid OR prior.result IS NULL THEN
      RETURN backline.settlement_failure('Payment reference already used');
    END IF;
    RETURN prior.result;
  END IF;

  BEGIN
    v_result := backline.settle_stream(uid, p_artist_id, p_sponsor_id, p_reference, p_amount);
  EXCEPTION WHEN OTHERS THEN
    -- The subtransaction rolled back any partial work: nothing moved.
    RAISE WARNING 'settle_sponsored_stream %: %', p_reference, SQLERRM;
    v_result := backline.settlement_failure('Payment could not be processed');
  END;
  UPDATE public.stream_settlements SET result = v_result,
    success = (v_result ->> 'success')::boolean,
    stream_id = (SELECT id FROM public.streams WHERE paid_reference = p_reference)
  WHERE reference = p_reference;
  RETURN v_result;
END $$;

-- ---------------------------------------------------------------------------
-- Card payments.

-- Checkout breakdown of spec section 9: VAT 7.5% of the base, rounded to
-- whole naira, plus a flat processing fee.
CREATE FUNCTION public.create_payment(p_provider text, p_purpose text, p_amount numeric DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  prov text := lower(btrim(coalesce(p_provider, '')));
  purpose text := lower(btrim(coalesce(p_purpose, '')));
  base numeric;
  vat numeric;
  fee numeric := backline.setting_num('checkout_processing_fee');
  ref text;
  min_topup numeric := backline.setting_num('min_topup');
  max_topup numeric := backline.setting_num('max_topup');
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'Authentication required' USING ERRCODE = 'P0001';
  END IF;
  IF prov NOT IN ('flutterwave', 'paystack', 'sandbox') THEN
    RAISE EXCEPTION 'Unknown payment provider' USING ERRCODE = 'P0001';
  END IF;
  IF purpose = 'verification' THEN
    base := backline.setting_num('verification_fee');
  ELSIF purpose = 'topup' THEN
    IF p_amount IS NULL OR p_amount <> round(p_amount, 2) THEN
      RAISE EXCEPTION 'Enter a valid amount' USING ERRCODE = 'P0001';
    END IF;
    IF p_amount < min_topup THEN
      RAISE EXCEPTION 'Minimum top-up is ₦%', trim_scale(min_topup) USING ERRCODE = 'P0001';
    END IF;
    IF p_amount > max_topup THEN
      RAISE EXCEPTION 'Maximum top-up is ₦%', trim_scale(max_topup) USING ERRCODE = 'P0001';
    END IF;
    base := p_amount;
  ELSE
    RAISE EXCEPTION 'Unknown payment purpose' USING ERRCODE = 'P0001';
  END IF;
  vat := round(base * backline.setting_num('checkout_vat_rate'));
  -- The prefix tells the app's return handler which flow it is in:
  -- verification-…, flw-… (first provider), otherwise the second provider.
  ref := CASE WHEN purpose = 'verification' THEN 'verification-'
              WHEN prov = 'paystack' THEN 'ps-'
              ELSE 'flw-' END || replace(gen_random_uuid()::text, '-', '');
  INSERT INTO public.payments (user_id, provider, tx_ref, purpose, amount, vat, fee, total)
  VALUES (uid, prov, ref, purpose, base, vat, fee, base + vat + fee);
  PERFORM backline.log_activity(uid, 'payment.created', 'payment', ref,
    jsonb_build_object('provider', prov, 'purpose', purpose, 'amount', base));
  RETURN jsonb_build_object('tx_ref', ref, 'amount', base, 'vat', vat, 'fee', fee, 'total', base + vat + fee,
    'purpose', purpose, 'provider', prov, 'currency', 'NGN');
END $$;

-- Completes a payment the provider's verify API (or webhook) confirmed.
-- Service role only: p_amount and p_status come from the provider, never
-- from a browser. p_amount is what the provider charged (the checkout
-- total). p_user_id is the signed-in account that came back from checkout
-- (NULL for webhooks): when it is not the payment's owner nothing is
-- credited and session_mismatch is true. Idempotent per (provider, tx_ref).
CREATE FUNCTION public.complete_payment(p_provider text, p_tx_ref text, p_user_id uuid, p_amount numeric,
  p_status text, p_raw jsonb DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  p public.payments;
  ok boolean := lower(coalesce(p_status, '')) IN ('successful', 'success', 'completed');
  moved jsonb;
  expires timestamptz;
  msg text;
BEGIN
  SELECT * INTO p FROM public.payments WHERE provider = lower(p_provider) AND tx_ref = p_tx_ref FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('success', false, 'message', 'Payment not found', 'already_processed', false,
      'session_mismatch', false, 'amount', NULL);
  END IF;
  IF p_user_id IS NOT NULL AND p_user_id <> p.user_id THEN
    PERFORM backline.log_activity(p_user_id, 'payment.session_mismatch', 'payment', p.tx_ref,
      jsonb_build_object('owner', p.user_id));
    RETURN jsonb_build_object('success', false,
      'message', 'Please ensure you''re logged in with the same account that started the payment.',
      'already_processed', p.status = 'successful', 'session_mismatch', true, 'amount', p.amount);
  END IF;
  IF p.status = 'successful' THEN
    RETURN jsonb_build_object('success', true, 'message', 'Payment already processed', 'already_processed', true,
      'session_mismatch', false, 'amount', p.amount, 'purpose', p.purpose);
  END IF;
  IF NOT ok THEN
    UPDATE public.payments SET status = 'failed', provider_status = p_status, raw_verification = p_raw,
      completed_at = now() WHERE id = p.id;
    RETURN jsonb_build_object('success', false, 'message', format('Payment was not successful: %s', p_status),
      'already_processed', false, 'session_mismatch', false, 'amount', p.amount);
  END IF;
  IF p_amount IS NULL OR p_amount < p.total THEN
    UPDATE public.payments SET status = 'failed', provider_status = 'amount_mismatch', raw_verification = p_raw,
      completed_at = now() WHERE id = p.id;
    PERFORM backline.log_activity(p.user_id, 'payment.amount_mismatch', 'payment', p.tx_ref,
      jsonb_build_object('expected', p.total, 'paid', p_amount));
    RETURN jsonb_build_object('success', false,
      'message', format('Amount paid (%s) does not match the amount due (%s)', trim_scale(coalesce(p_amount, 0)), trim_scale(p.total)),
      'already_processed', false, 'session_mismatch', false, 'amount', p.amount);
  END IF;

  IF p.purpose = 'topup' THEN
    moved := public.transfer_funds(
      (SELECT id FROM public.wallets WHERE account = 'provider:' || p.provider), p.user_id, p.amount,
      'payment:' || p.provider || ':' || p.tx_ref, 'topup', NULL, NULL,
      jsonb_build_object('payment_id', p.id, 'tx_ref', p.tx_ref));
    msg := format('Wallet top-up successful! ₦%s has been added to your wallet.', backline.naira(p.amount));
  ELSE
    SELECT greatest(now(), coalesce(verification_expires_at, now()))
           + make_interval(days => backline.setting_num('verification_valid_days')::int)
      INTO expires FROM public.public_profiles WHERE id = p.user_id;
    UPDATE public.public_profiles SET is_verified = true, verification_expires_at = expires WHERE id = p.user_id;
    INSERT INTO public.verifications (user_id, payment_id, expires_at) VALUES (p.user_id, p.id, expires);
    PERFORM backline.notify(p.user_id, 'system_update', 'Verification successful',
      'Verification successful! Your profile has been verified for 1 year.',
      jsonb_build_object('expires_at', expires, 'tx_ref', p.tx_ref));
    msg := 'Verification successful! Your profile has been verified for 1 year.';
  END IF;
  UPDATE public.payments SET status = 'successful', provider_status = p_status, raw_verification = p_raw,
    completed_at = now(), transaction_id = (moved ->> 'transaction_id')::uuid
  WHERE id = p.id;
  PERFORM backline.log_activity(p.user_id, 'payment.completed', 'payment', p.tx_ref,
    jsonb_build_object('purpose', p.purpose, 'amount', p.amount, 'provider', p.provider));
  RETURN jsonb_build_object('success', true, 'message', msg, 'already_processed', false, 'session_mismatch', false,
    'amount', p.amount, 'purpose', p.purpose, 'verified_until', expires);
END $$;

-- ---------------------------------------------------------------------------
-- Cash-outs: an artist asks, the amount is held (moved to the hold account)
-- until an admin completes (paid out) or rejects (returned) the request.

CREATE FUNCTION public.request_cashout(p_amount numeric, p_bank_name text DEFAULT NULL,
  p_account_number text DEFAULT NULL, p_account_name text DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  min_amount numeric := backline.setting_num('min_cashout');
  balance numeric;
  req public.cashout_requests;
  moved jsonb;
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'Authentication required' USING ERRCODE = 'P0001';
  END IF;
  IF public.current_user_role() IS DISTINCT FROM 'artist' THEN
    RAISE EXCEPTION 'Only artists can request a cash-out' USING ERRCODE = 'P0001';
  END IF;
  IF p_amount IS NULL OR p_amount <> round(p_amount, 2) OR p_amount <= 0 THEN
    RAISE EXCEPTION 'Enter a valid amount' USING ERRCODE = 'P0001';
  END IF;
  IF p_amount < min_amount THEN
    RAISE EXCEPTION 'Minimum cash-out amount is ₦%', backline.naira(min_amount) USING ERRCODE = 'P0001';
  END IF;
  SELECT w.balance INTO balance FROM public.wallets w WHERE w.id = uid FOR UPDATE;
  IF balance IS NULL OR balance < p_amount THEN
    RAISE EXCEPTION 'Insufficient balance. Has ₦%, needs ₦%', backline.naira(coalesce(balance, 0)), backline.naira(p_amount)
      USING ERRCODE = 'P0001';
  END IF;
  INSERT INTO public.cashout_requests (user_id, amount, bank_name, account_number, account_name)
  VALUES (uid, p_amount, left(p_bank_name, 100), left(p_account_number, 20), left(p_account_name, 200))
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

-- Admins (or the service role) only.
CREATE FUNCTION backline.require_admin() RETURNS uuid
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF current_setting('role', true) IN ('anon', 'authenticated') AND NOT public.is_admin() THEN
    RAISE EXCEPTION 'Only admins can do this' USING ERRCODE = '42501';
  END IF;
  RETURN auth.uid();
END $$;

CREATE FUNCTION public.complete_cashout(p_id uuid) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.require_admin();
  req public.cashout_requests;
  moved jsonb;
BEGIN
  SELECT * INTO req FROM public.cashout_requests WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Cash-out request not found' USING ERRCODE = 'P0001';
  END IF;
  IF req.status <> 'pending' THEN
    RAISE EXCEPTION 'Cash-out request is already %', req.status USING ERRCODE = 'P0001';
  END IF;
  moved := public.transfer_funds('00000000-0000-0000-0000-00000000c001', '00000000-0000-0000-0000-00000000c002',
    req.amount, 'cashout-paid:' || req.id, 'cashout_paid', NULL, NULL,
    jsonb_build_object('cashout_id', req.id, 'user_id', req.user_id));
  UPDATE public.cashout_requests SET status = 'completed', processed_by = actor, processed_at = now(),
    settle_transaction_id = (moved ->> 'transaction_id')::uuid
  WHERE id = req.id;
  PERFORM backline.notify(req.user_id, 'cashout_completed', 'Cash-out Completed',
    format('Your cash-out of ₦%s has been completed.', backline.naira(req.amount)),
    jsonb_build_object('amount', req.amount, 'cashout_id', req.id));
  PERFORM backline.log_activity(actor, 'cashout.completed', 'cashout', req.id::text, jsonb_build_object('amount', req.amount));
  RETURN jsonb_build_object('success', true, 'id', req.id, 'status', 'completed', 'amount', req.amount);
END $$;

CREATE FUNCTION public.reject_cashout(p_id uuid, p_reason text DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.require_admin();
  req public.cashout_requests;
  moved jsonb;
  v_reason text := left(nullif(btrim(coalesce(p_reason, '')), ''), 500);
BEGIN
  SELECT * INTO req FROM public.cashout_requests WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Cash-out request not found' USING ERRCODE = 'P0001';
  END IF;
  IF req.status <> 'pending' THEN
    RAISE EXCEPTION 'Cash-out request is already %', req.status USING ERRCODE = 'P0001';
  END IF;
  moved := public.transfer_funds('00000000-0000-0000-0000-00000000c001', req.user_id, req.amount,
    'cashout-release:' || req.id, 'cashout_release', NULL, NULL, jsonb_build_object('cashout_id', req.id));
  UPDATE public.cashout_requests SET status = 'rejected', reason = v_reason, processed_by = actor,
    processed_at = now(), settle_transaction_id = (moved ->> 'transaction_id')::uuid
  WHERE id = req.id;
  PERFORM backline.notify(req.user_id, 'cashout_updated', 'Cash-out Rejected',
    format('Your cash-out request of ₦%s was rejected%s. The amount has been returned to your wallet.',
      backline.naira(req.amount), coalesce(': ' || v_reason, '')),
    jsonb_build_object('amount', req.amount, 'cashout_id', req.id, 'status', 'rejected', 'reason', v_reason));
  PERFORM backline.log_activity(actor, 'cashout.rejected', 'cashout', req.id::text,
    jsonb_build_object('amount', req.amount, 'reason', v_reason));
  RETURN jsonb_build_object('success', true, 'id', req.id, 'status', 'rejected', 'amount', req.amount);
END $$;

-- ---------------------------------------------------------------------------
-- Sponsorship invites. The same rules hold for the RPC and for the spec's
-- direct table writes: the guard fixes who initiated and what may change,
-- and the after-update trigger marks the track sponsored and notifies.

CREATE FUNCTION backline.guard_invite() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  t record;
BEGIN
  IF current_user::text NOT IN ('anon', 'authenticated') THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' THEN
    NEW.initiated_by := CASE WHEN NEW.sponsor_id = uid THEN 'sponsor' ELSE 'artist' END;
    NEW.status := 'pending';
    NEW.created_at := now();
    NEW.responded_at := NULL;
    IF NEW.track_id IS NOT NULL THEN
      SELECT artist_id, is_sponsored, sponsor_id INTO t FROM public.tracks WHERE id = NEW.track_id;
      IF NOT FOUND OR t.artist_id <> NEW.artist_id THEN
        RAISE EXCEPTION 'Track not found' USING ERRCODE = 'P0001';
      END IF;
      IF t.is_sponsored AND t.sponsor_id IS DISTINCT FROM NEW.sponsor_id THEN
        RAISE EXCEPTION 'Track is already sponsored' USING ERRCODE = 'P0001';
      END IF;
    END IF;
    RETURN NEW;
  END IF;
  IF public.is_admin() THEN
    RETURN NEW;
  END IF;
  IF OLD.status <> 'pending' THEN
    RAISE EXCEPTION 'This invitation has already been answered' USING ERRCODE = 'P0001';
  END IF;
  -- The invitee answers; nothing else about the invite changes.
  NEW.id := OLD.id;
  NEW.artist_id := OLD.artist_id;
  NEW.sponsor_id := OLD.sponsor_id;
  NEW.track_id := OLD.track_id;
  NEW.initiated_by := OLD.initiated_by;
  NEW.pitch := OLD.pitch;
  NEW.created_at := OLD.created_at;
  NEW.responded_at := CASE WHEN NEW.status <> 'pending' THEN now() END;
  RETURN NEW;
END $$;
CREATE TRIGGER guard_invite BEFORE INSERT OR UPDATE ON public.sponsor_artist_invites
  FOR EACH ROW EXECUTE FUNCTION backline.guard_invite();

CREATE FUNCTION backline.display_name(p_id uuid) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT coalesce(
    (SELECT coalesce(nullif(company_name, ''), nullif(name, '')) FROM public.sponsor_profiles WHERE id = p_id),
    (SELECT nullif(name, '') FROM public.artist_profiles WHERE id = p_id),
    (SELECT coalesce(nullif(display_name, ''), username) FROM public.public_profiles WHERE id = p_id),
    'Someone')
$$;

CREATE FUNCTION backline.invite_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  artist text := backline.display_name(NEW.artist_id);
  sponsor text := backline.display_name(NEW.sponsor_id);
  track text := (SELECT title FROM public.tracks WHERE id = NEW.track_id);
  data jsonb := jsonb_build_object('invite_id', NEW.id, 'artist_id', NEW.artist_id, 'sponsor_id', NEW.sponsor_id,
    'track_id', NEW.track_id, 'pitch', NEW.pitch);
  initiator uuid := CASE NEW.initiated_by WHEN 'sponsor' THEN NEW.sponsor_id ELSE NEW.artist_id END;
  invitee uuid := CASE NEW.initiated_by WHEN 'sponsor' THEN NEW.artist_id ELSE NEW.sponsor_id END;
  n int;
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.initiated_by = 'sponsor' THEN
      PERFORM backline.notify(NEW.artist_id, 'sponsor_invite', 'New Sponsorship Invitation',
        format('%s wants to sponsor %s', sponsor, coalesce('your track "' || track || '"', 'you')), data);
    ELSE
      PERFORM backline.notify(NEW.sponsor_id, 'artist_invite', 'New Sponsorship Request',
        format('%s is asking you to sponsor %s', artist, coalesce('the track "' || track || '"', 'them')), data);
    END IF;
    PERFORM backline.log_activity(initiator, 'invite.created', 'invite', NEW.id::text, data);
    RETURN NULL;
  END IF;
  IF NEW.status = OLD.status THEN
    RETURN NULL;
  END IF;
  IF NEW.status = 'accepted' THEN
    IF NEW.track_id IS NOT NULL THEN
      UPDATE public.tracks SET is_sponsored = true, sponsor_id = NEW.sponsor_id
      WHERE id = NEW.track_id AND artist_id = NEW.artist_id
        AND (NOT is_sponsored OR sponsor_id IS NULL OR sponsor_id = NEW.sponsor_id);
      GET DIAGNOSTICS n = ROW_COUNT;
      IF n = 0 THEN
        RAISE EXCEPTION 'Track is already sponsored' USING ERRCODE = 'P0001';
      END IF;
      -- The track is taken: other open pitches for it lapse.
      UPDATE public.sponsor_artist_invites SET status = 'rejected', responded_at = now()
      WHERE track_id = NEW.track_id AND status = 'pending' AND id <> NEW.id;
    END IF;
    PERFORM backline.notify(initiator, 'system_update', 'Invitation Accepted',
      format('%s accepted your sponsorship %s', CASE NEW.initiated_by WHEN 'sponsor' THEN artist ELSE sponsor END,
        CASE NEW.initiated_by WHEN 'sponsor' THEN 'invitation' ELSE 'request' END), data);
    PERFORM backline.notify(invitee, 'system_update', 'Sponsorship Active',
      format('You are now in a sponsorship with %s%s', CASE NEW.initiated_by WHEN 'sponsor' THEN sponsor ELSE artist END,
        coalesce(' for "' || track || '"', '')), data);
  ELSIF NEW.status = 'rejected' THEN
    PERFORM backline.notify(initiator, 'system_update', 'Invitation Declined',
      format('%s declined your sponsorship %s', CASE NEW.initiated_by WHEN 'sponsor' THEN artist ELSE sponsor END,
        CASE NEW.initiated_by WHEN 'sponsor' THEN 'invitation' ELSE 'request' END), data);
  END IF;
  PERFORM backline.log_activity(auth.uid(), 'invite.' || NEW.status, 'invite', NEW.id::text, data);
  RETURN NULL;
END $$;
CREATE TRIGGER invite_changed AFTER INSERT OR UPDATE OF status ON public.sponsor_artist_invites
  FOR EACH ROW EXECUTE FUNCTION backline.invite_changed();

-- The invitee answers (for a sponsor's invite that is the artist).
CREATE FUNCTION public.respond_to_invite(p_invite_id uuid, p_accept boolean) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  inv public.sponsor_artist_invites;
BEGIN
  IF p_invite_id IS NULL OR p_accept IS NULL THEN
    RAISE EXCEPTION 'Invalid invitation data' USING ERRCODE = 'P0001';
  END IF;
  SELECT * INTO inv FROM public.sponsor_artist_invites WHERE id = p_invite_id FOR UPDATE;
  IF NOT FOUND OR uid IS NULL
     OR NOT ((inv.initiated_by = 'sponsor' AND inv.artist_id = uid) OR (inv.initiated_by = 'artist' AND inv.sponsor_id = uid)) THEN
    RAISE EXCEPTION 'Invalid invitation data' USING ERRCODE = 'P0001';
  END IF;
  IF inv.status <> 'pending' THEN
    RAISE EXCEPTION 'This invitation has already been answered' USING ERRCODE = 'P0001';
  END IF;
  UPDATE public.sponsor_artist_invites
  SET status = CASE WHEN p_accept THEN 'accepted' ELSE 'rejected' END, responded_at = now()
  WHERE id = inv.id
  RETURNING * INTO inv;
  RETURN jsonb_build_object('success', true, 'invite_id', inv.id, 'status', inv.status, 'track_id', inv.track_id,
    'message', CASE WHEN p_accept THEN 'You have successfully accepted the sponsorship request'
                    ELSE 'You have declined the sponsorship request' END);
END $$;

-- ---------------------------------------------------------------------------
-- Admin dashboard: users with their e-mail (which lives in auth.users),
-- role, status and wallet, newest first.
CREATE FUNCTION public.admin_list_users(p_limit integer DEFAULT 50, p_offset integer DEFAULT 0)
RETURNS TABLE (id uuid, email text, role public.app_role, display_name text, username text, is_verified boolean,
  is_suspended boolean, suspended_reason text, balance numeric, created_at timestamptz, last_sign_in_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  PERFORM backline.require_admin();
  RETURN QUERY
  SELECT p.id, u.email::text, p.role, p.display_name, p.username, p.is_verified, p.is_suspended, p.suspended_reason,
    w.balance, p.created_at, u.last_sign_in_at
  FROM public.public_profiles p
  JOIN auth.users u ON u.id = p.id
  LEFT JOIN public.wallets w ON w.id = p.id
  ORDER BY p.created_at DESC, p.id
  LIMIT least(greatest(coalesce(p_limit, 50), 1), 500) OFFSET greatest(coalesce(p_offset, 0), 0);
END $$;

-- ---------------------------------------------------------------------------
-- Who may call what.
REVOKE EXECUTE ON FUNCTION
  public.transfer_funds(uuid, uuid, numeric, text, text, uuid, uuid, jsonb),
  public.complete_payment(text, text, uuid, numeric, text, jsonb)
FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION
  public.transfer_funds(uuid, uuid, numeric, text, text, uuid, uuid, jsonb),
  public.complete_payment(text, text, uuid, numeric, text, jsonb)
TO service_role;
REVOKE EXECUTE ON FUNCTION
  public.settle_sponsored_stream(uuid, uuid, text, numeric),
  public.create_payment(text, text, numeric),
  public.request_cashout(numeric, text, text, text),
  public.complete_cashout(uuid),
  public.reject_cashout(uuid, text),
  public.respond_to_invite(uuid, boolean),
  public.admin_list_users(integer, integer)
FROM PUBLIC, anon;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA backline FROM PUBLIC;
