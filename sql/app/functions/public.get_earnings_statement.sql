-- The artist's earnings (sponsored-stream credits) per day, week or month
-- between two local dates, every period listed.
CREATE OR REPLACE FUNCTION public.get_earnings_statement(p_period text, p_from date, p_to date)
RETURNS TABLE (period_start date, streams bigint, amount numeric)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_user();
  unit text := lower(coalesce(p_period, ''));
BEGIN
  IF unit NOT IN ('day', 'week', 'month') THEN
    RAISE EXCEPTION 'period must be day, week or month' USING ERRCODE = 'P0001';
  END IF;
  IF p_from IS NULL OR p_to IS NULL OR p_to < p_from OR p_to - p_from > 1830 THEN
    RAISE EXCEPTION 'Choose a range of at most five years' USING ERRCODE = 'P0001';
  END IF;
  RETURN QUERY
  WITH periods AS (
    SELECT g::date AS start
    FROM generate_series(date_trunc(unit, p_from::timestamp), date_trunc(unit, p_to::timestamp),
      ('1 ' || unit)::interval) g
  ), moved AS (
    SELECT date_trunc(unit, (t.created_at AT TIME ZONE 'Africa/Lagos'))::date AS start, count(*) AS n, sum(t.amount) AS amt
    FROM public.transactions t
    WHERE t.to_wallet = uid AND t.kind = 'sponsored_stream'
      AND t.created_at >= (p_from::timestamp AT TIME ZONE 'Africa/Lagos')
      AND t.created_at < ((p_to + 1)::timestamp AT TIME ZONE 'Africa/Lagos')
    GROUP BY 1
  )
  SELECT periods.start, coalesce(moved.n, 0)::bigint, coalesce(moved.amt, 0)::numeric
  FROM periods LEFT JOIN moved ON moved.start = periods.start
  ORDER BY periods.start;
END $$;

REVOKE ALL ON FUNCTION public.get_earnings_statement(text, date, date) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_earnings_statement(text, date, date) TO authenticated, service_role;
