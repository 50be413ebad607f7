-- Verification: one at a time. create_payment inserts the pending payment as
-- the caller, so this guard refuses the purchase before any checkout opens.
-- Two checkouts opened before either is paid both pass it; complete_payment
-- holds the rule again where the money arrives.
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

CREATE OR REPLACE TRIGGER guard_verification_payment BEFORE INSERT ON public.payments
  FOR EACH ROW EXECUTE FUNCTION backline.guard_verification_payment();

REVOKE ALL ON FUNCTION backline.guard_verification_payment() FROM PUBLIC, anon, authenticated, service_role;
