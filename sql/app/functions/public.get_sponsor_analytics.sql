-- The sponsor's spend over the last p_days local days (7 or 30 in the app):
-- per day (every day listed), per artist and per track.
CREATE OR REPLACE FUNCTION public.get_sponsor_analytics(p_days integer DEFAULT 30) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_user();
  days int := least(greatest(coalesce(p_days, 30), 1), 366);
  first_day date := backline.lagos_day(now()) - (days - 1);
  since timestamptz := first_day::timestamp AT TIME ZONE 'Africa/Lagos';
BEGIN
  RETURN jsonb_build_object('days', days,
    'per_day', (SELECT jsonb_agg(jsonb_build_object('day', d.day, 'amount', coalesce(x.amt, 0), 'streams', coalesce(x.n, 0))
        ORDER BY d.day)
      FROM (SELECT (first_day + k) AS day FROM generate_series(0, days - 1) k) d
      LEFT JOIN (SELECT backline.lagos_day(created_at) AS day, sum(amount) AS amt, count(*) AS n
                 FROM public.transactions WHERE from_wallet = uid AND kind = 'sponsored_stream' AND created_at >= since
                 GROUP BY 1) x ON x.day = d.day),
    'per_artist', (SELECT coalesce(jsonb_agg(jsonb_build_object('artist_id', a.to_wallet,
        'name', backline.display_name(a.to_wallet), 'amount', a.amt, 'streams', a.n) ORDER BY a.amt DESC), '[]'::jsonb)
      FROM (SELECT to_wallet, sum(amount) AS amt, count(*) AS n FROM public.transactions
            WHERE from_wallet = uid AND kind = 'sponsored_stream' AND created_at >= since GROUP BY to_wallet) a),
    'per_track', (SELECT coalesce(jsonb_agg(jsonb_build_object('track_id', x.track_id,
        'title', coalesce(t.title, 'Deleted track'), 'amount', x.amt, 'streams', x.n) ORDER BY x.amt DESC), '[]'::jsonb)
      FROM (SELECT track_id, sum(amount) AS amt, count(*) AS n FROM public.transactions
            WHERE from_wallet = uid AND kind = 'sponsored_stream' AND created_at >= since GROUP BY track_id) x
      LEFT JOIN public.tracks t ON t.id = x.track_id));
END $$;

REVOKE ALL ON FUNCTION public.get_sponsor_analytics(integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_sponsor_analytics(integer) TO authenticated, service_role;
