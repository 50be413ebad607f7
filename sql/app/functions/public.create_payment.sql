-- Checkout breakdown of spec section 9: VAT 7.5% of the base, rounded to
-- whole naira, plus a flat processing fee.
CREATE OR REPLACE FUNCTION public.create_payment(p_provider text, p_purpose text, p_amount numeric DEFAULT NULL)
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
  PERFORM backline.require_active();
  IF prov NOT IN ('flutterwave', 'paystack', 'sandbox') THEN
    RAISE EXCEPTION 'Unknown payment provider' USING ERRCODE = 'P0001';
  END IF;
  IF purpose = 'verification' THEN
    base := backline.setting_num('verification_fee');
  ELSIF purpose = 'topup' THEN
    IF NOT backline.is_naira(p_amount) THEN
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

REVOKE ALL ON FUNCTION public.create_payment(text, text, numeric) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.create_payment(text, text, numeric) TO authenticated, service_role;
