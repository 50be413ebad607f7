-- Low balance: a sponsor's wallet crossing under the threshold tells them.
CREATE OR REPLACE FUNCTION backline.low_balance_notice() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE threshold numeric := backline.setting_num('low_balance_threshold');
BEGIN
  IF NEW.user_id IS NOT NULL AND OLD.balance >= threshold AND NEW.balance < threshold
     AND EXISTS (SELECT 1 FROM public.user_roles WHERE user_id = NEW.user_id AND role = 'sponsor') THEN
    PERFORM backline.notify(NEW.user_id, 'system_update', 'Low wallet balance',
      format('Your wallet balance is ₦%s, under ₦%s. Top up to keep paying for streams.',
        backline.naira(NEW.balance), backline.naira(threshold)),
      jsonb_build_object('balance', NEW.balance, 'threshold', threshold, 'kind', 'low_balance'));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER low_balance_notice AFTER UPDATE OF balance ON public.wallets
  FOR EACH ROW WHEN (NEW.balance < OLD.balance) EXECUTE FUNCTION backline.low_balance_notice();

REVOKE ALL ON FUNCTION backline.low_balance_notice() FROM PUBLIC, anon, authenticated, service_role;
