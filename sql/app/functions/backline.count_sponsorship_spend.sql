CREATE OR REPLACE FUNCTION backline.count_sponsorship_spend() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  INSERT INTO backline.sponsorship_spend AS s (sponsor_id, track_id, streams, amount, last_paid_at)
  VALUES (NEW.from_wallet, NEW.track_id, 1, NEW.amount, NEW.created_at)
  ON CONFLICT (sponsor_id, track_id) DO UPDATE SET streams = s.streams + 1, amount = s.amount + EXCLUDED.amount,
    last_paid_at = greatest(s.last_paid_at, EXCLUDED.last_paid_at);
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER count_sponsorship_spend AFTER INSERT ON public.transactions
  FOR EACH ROW WHEN (NEW.kind = 'sponsored_stream' AND NEW.track_id IS NOT NULL)
  EXECUTE FUNCTION backline.count_sponsorship_spend();

REVOKE ALL ON FUNCTION backline.count_sponsorship_spend() FROM PUBLIC, anon, authenticated, service_role;
