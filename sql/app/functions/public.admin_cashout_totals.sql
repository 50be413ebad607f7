-- Per day (Lagos time) over the last p_days days: requests made, and
-- requests completed and rejected that day; plus what is pending now.
CREATE OR REPLACE FUNCTION public.admin_cashout_totals(p_days integer DEFAULT 14) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  days int := least(greatest(coalesce(p_days, 14), 1), 366);
  since timestamptz := (backline.today() - (days - 1)) AT TIME ZONE 'Africa/Lagos';
BEGIN
  PERFORM backline.admin_actor();
  RETURN jsonb_build_object(
    'pending', (SELECT jsonb_build_object('count', count(*), 'amount', coalesce(sum(amount), 0), 'oldest', min(created_at))
      FROM public.cashout_requests WHERE status = 'pending'),
    'days', (SELECT coalesce(jsonb_agg(jsonb_build_object('day', d.day,
        'requested_count', coalesce(r.n, 0), 'requested_amount', coalesce(r.amount, 0),
        'completed_count', coalesce(p.completed_n, 0), 'completed_amount', coalesce(p.completed_amount, 0),
        'rejected_count', coalesce(p.rejected_n, 0), 'rejected_amount', coalesce(p.rejected_amount, 0)) ORDER BY d.day DESC), '[]')
      FROM (SELECT backline.today() - i AS day FROM generate_series(0, days - 1) AS g(i)) d
      LEFT JOIN (SELECT (created_at AT TIME ZONE 'Africa/Lagos')::date AS day, count(*) AS n, sum(amount) AS amount
        FROM public.cashout_requests WHERE created_at >= since GROUP BY 1) r ON r.day = d.day
      LEFT JOIN (SELECT (processed_at AT TIME ZONE 'Africa/Lagos')::date AS day,
          count(*) FILTER (WHERE status = 'completed') AS completed_n,
          sum(amount) FILTER (WHERE status = 'completed') AS completed_amount,
          count(*) FILTER (WHERE status = 'rejected') AS rejected_n,
          sum(amount) FILTER (WHERE status = 'rejected') AS rejected_amount
        FROM public.cashout_requests WHERE processed_at >= since GROUP BY 1) p ON p.day = d.day));
END $$;

REVOKE ALL ON FUNCTION public.admin_cashout_totals(integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_cashout_totals(integer) TO authenticated, service_role;
