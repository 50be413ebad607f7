-- Money integrity: a verification is extended once, however many payments
-- for it complete at once: the decision is taken under the profile's row
-- lock when a payment completes, and a payment that would buy a second
-- verification while one is valid (outside its renewal days) is credited to
-- the payer's wallet instead, so no paid reference goes missing.

-- ---------------------------------------------------------------------------
-- Verification once.
--
-- 0007's guard refuses a purchase while a verification is valid, but two
-- checkouts opened before either is paid both pass it, and each completion
-- used to add a year. Nothing can be refused before the provider charges
-- (the charge happens on the provider's page), so the rule is enforced where
-- the money arrives: complete_payment locks the profile row, so completions
-- for one user run one after the other and each sees the expiry the one
-- before it set. Every paid reference is then credited exactly once: to a
-- verification (verifications.payment_id, unique below) or to the ledger
-- (transactions.reference, unique) under the top-up's reference.
CREATE UNIQUE INDEX verifications_payment_once ON public.verifications (payment_id) WHERE payment_id IS NOT NULL;

-- True while a verification is valid for more than the renewal days: no
-- purchase now. One rule for the checkout guard and the completion.
CREATE FUNCTION backline.verification_blocks_purchase(p public.public_profiles) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT coalesce(p.is_verified AND p.verification_expires_at
    > now() + make_interval(days => backline.setting_num('verification_renewal_days')::int), false)
$$;

CREATE OR REPLACE FUNCTION backline.guard_verification_payment() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  p public.public_profiles;
BEGIN
  IF NEW.purpose <> 'verification' THEN
    RETURN NEW;
  END IF;
  SELECT * INTO p FROM public.public_profiles WHERE id = NEW.user_id;
  IF p.role IS NULL OR p.role NOT IN ('artist', 'sponsor') THEN
    RAISE EXCEPTION 'Verification is for artists and sponsors' USING ERRCODE = 'P0001';
  END IF;
  IF backline.verification_blocks_purchase(p) THEN
    RAISE EXCEPTION 'Your verification is active until %. You can renew it in its last % days.',
      to_char(p.verification_expires_at AT TIME ZONE 'Africa/Lagos', 'FMDD Mon YYYY'),
      backline.setting_num('verification_renewal_days')::int
      USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;

-- A successful verification payment: a year more of verification, or, when
-- one is already valid beyond its renewal days (another payment completed
-- first), the base amount into the payer's wallet as a top-up. Runs inside
-- complete_payment, which holds the payment's row lock.
CREATE FUNCTION backline.complete_verification(p public.payments) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  prof public.public_profiles;
  expires timestamptz;
  moved jsonb;
  msg text;
BEGIN
  -- Serialises every completion for this user; a concurrent one waits here
  -- and then reads the expiry the first one set.
  SELECT * INTO prof FROM public.public_profiles WHERE id = p.user_id FOR UPDATE;
  IF backline.verification_blocks_purchase(prof) THEN
    moved := public.transfer_funds(
      (SELECT id FROM public.wallets WHERE account = 'provider:' || p.provider), p.user_id, p.amount,
      'payment:' || p.provider || ':' || p.tx_ref, 'topup', NULL, NULL,
      jsonb_build_object('payment_id', p.id, 'tx_ref', p.tx_ref, 'purpose', 'verification',
        'reason', 'verification already active'));
    msg := format('Your profile is already verified until %s. ₦%s from this payment has been added to your wallet.',
      to_char(prof.verification_expires_at AT TIME ZONE 'Africa/Lagos', 'FMDD Mon YYYY'), backline.naira(p.amount));
    PERFORM backline.notify(p.user_id, 'system_update', 'Payment added to your wallet', msg,
      jsonb_build_object('amount', p.amount, 'tx_ref', p.tx_ref, 'expires_at', prof.verification_expires_at));
    RETURN jsonb_build_object('message', msg, 'expires', prof.verification_expires_at, 'moved', moved,
      'credited_to_wallet', true);
  END IF;
  expires := greatest(now(), coalesce(prof.verification_expires_at, now()))
    + make_interval(days => backline.setting_num('verification_valid_days')::int);
  UPDATE public.public_profiles SET is_verified = true, verification_expires_at = expires WHERE id = p.user_id;
  INSERT INTO public.verifications (user_id, payment_id, expires_at) VALUES (p.user_id, p.id, expires);
  msg := 'Verification successful! Your profile has been verified for 1 year.';
  PERFORM backline.notify(p.user_id, 'system_update', 'Verification successful', msg,
    jsonb_build_object('expires_at', expires, 'tx_ref', p.tx_ref));
  RETURN jsonb_build_object('message', msg, 'expires', expires, 'moved', NULL, 'credited_to_wallet', false);
END $$;

-- As in 0004, with the verification branch above.
CREATE OR REPLACE FUNCTION public.complete_payment(p_provider text, p_tx_ref text, p_user_id uuid, p_amount numeric,
  p_status text, p_raw jsonb DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  p public.payments;
  ok boolean := lower(coalesce(p_status, '')) IN ('successful', 'success', 'completed');
  moved jsonb;
  verified jsonb;
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
      'session_mismatch', false, 'amount', p.amount, 'purpose', p.purpose,
      'credited_to_wallet', p.purpose = 'verification' AND p.transaction_id IS NOT NULL);
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
    verified := backline.complete_verification(p);
    moved := verified -> 'moved';
    msg := verified ->> 'message';
  END IF;
  UPDATE public.payments SET status = 'successful', provider_status = p_status, raw_verification = p_raw,
    completed_at = now(), transaction_id = (moved ->> 'transaction_id')::uuid
  WHERE id = p.id;
  PERFORM backline.log_activity(p.user_id, 'payment.completed', 'payment', p.tx_ref,
    jsonb_build_object('purpose', p.purpose, 'amount', p.amount, 'provider', p.provider,
      'credited_to_wallet', coalesce((verified ->> 'credited_to_wallet')::boolean, false)));
  RETURN jsonb_build_object('success', true, 'message', msg, 'already_processed', false, 'session_mismatch', false,
    'amount', p.amount, 'purpose', p.purpose, 'verified_until', verified -> 'expires',
    'credited_to_wallet', coalesce((verified ->> 'credited_to_wallet')::boolean, false));
END $$;

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA backline FROM PUBLIC;
