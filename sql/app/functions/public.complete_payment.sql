-- Completes a payment the provider's verify API (or webhook) confirmed.
-- Service role only: p_amount and p_status come from the provider, never
-- from a browser. p_amount is what the provider charged (the checkout
-- total). p_user_id is the signed-in account that came back from checkout
-- (NULL for webhooks): when it is not the payment's owner nothing is
-- credited and session_mismatch is true. Idempotent per (provider, tx_ref).
-- A verification payment that arrives while a verification is valid
-- (outside its renewal days) is credited to the wallet instead
-- (backline.complete_verification).
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

REVOKE ALL ON FUNCTION public.complete_payment(text, text, uuid, numeric, text, jsonb) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.complete_payment(text, text, uuid, numeric, text, jsonb) TO service_role;
