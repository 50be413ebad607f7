-- A successful verification payment: a year more of verification, or, when
-- one is already valid beyond its renewal days (another payment completed
-- first), the base amount into the payer's wallet as a top-up. Runs inside
-- complete_payment, which holds the payment's row lock.
CREATE OR REPLACE FUNCTION backline.complete_verification(p public.payments) RETURNS jsonb
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

REVOKE ALL ON FUNCTION backline.complete_verification(public.payments) FROM PUBLIC, anon, authenticated, service_role;
