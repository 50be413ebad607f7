-- The figures of the artist, sponsor and fan dashboards, computed where the
-- rows are. Each dashboard's first screen is one call (get_*_dashboard);
-- the earnings statement and the sponsor's analytics are aggregates over
-- the ledger, zero-filled so charts and statements have every period.
--
-- Everything is the caller's own: the functions read with the definer's
-- rights but only rows of auth.uid() (the same rows RLS would show the
-- caller: wallets, the ledger, cash-outs and invites are the owner's or the
-- parties'; tracks and streams are public). Days are Nigerian local days.

-- The local day of a moment.
CREATE FUNCTION backline.lagos_day(p_at timestamptz) RETURNS date
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT (p_at AT TIME ZONE 'Africa/Lagos')::date
$$;

CREATE FUNCTION backline.require_user() RETURNS uuid
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE uid uuid := auth.uid();
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'Authentication required' USING ERRCODE = 'P0001';
  END IF;
  RETURN uid;
END $$;

-- ---------------------------------------------------------------------------
-- Artist: wallet (balance, held for pending cash-outs, earned, paid out),
-- tracks with valid and all streams, earnings and sponsor, invites, recent
-- cash-outs and the verification status.
CREATE FUNCTION public.get_artist_dashboard() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_user();
  p public.public_profiles;
  renew_days int := backline.setting_num('verification_renewal_days')::int;
  active boolean;
BEGIN
  SELECT * INTO p FROM public.public_profiles WHERE id = uid;
  active := coalesce(p.is_verified AND (p.verification_expires_at IS NULL OR p.verification_expires_at > now()), false);
  RETURN jsonb_build_object(
    'wallet', jsonb_build_object(
      'balance', coalesce((SELECT balance FROM public.wallets WHERE id = uid), 0),
      'held', (SELECT coalesce(sum(amount), 0) FROM public.cashout_requests WHERE user_id = uid AND status = 'pending'),
      'paid_out', (SELECT coalesce(sum(amount), 0) FROM public.cashout_requests WHERE user_id = uid AND status = 'completed'),
      'earned', (SELECT coalesce(sum(amount), 0) FROM public.transactions WHERE to_wallet = uid AND kind = 'sponsored_stream')),
    'min_cashout', backline.setting_num('min_cashout'),
    'tracks', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'id', t.id, 'title', t.title, 'genre', t.genre, 'cover_url', t.cover_url, 'audio_url', t.audio_url,
        'duration', t.duration, 'release_date', t.release_date, 'description', t.description,
        'is_explicit', t.is_explicit, 'is_sponsored', t.is_sponsored, 'sponsor_id', t.sponsor_id,
        'sponsor_name', CASE WHEN t.sponsor_id IS NOT NULL THEN backline.display_name(t.sponsor_id) END,
        'created_at', t.created_at, 'streams_valid', coalesce(s.valid, 0), 'streams_all', coalesce(s.total, 0),
        'earnings', coalesce(e.amount, 0)) ORDER BY t.created_at DESC), '[]'::jsonb)
      FROM public.tracks t
      LEFT JOIN (SELECT track_id, count(*) FILTER (WHERE is_valid) AS valid, count(*) AS total
                 FROM public.streams WHERE track_id IN (SELECT id FROM public.tracks WHERE artist_id = uid)
                 GROUP BY track_id) s ON s.track_id = t.id
      LEFT JOIN (SELECT track_id, sum(amount) AS amount FROM public.transactions
                 WHERE to_wallet = uid AND kind = 'sponsored_stream' GROUP BY track_id) e ON e.track_id = t.id
      WHERE t.artist_id = uid),
    'invites', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'id', i.id, 'sponsor_id', i.sponsor_id, 'sponsor_name', backline.display_name(i.sponsor_id),
        'track_id', i.track_id, 'track_title', t.title, 'status', i.status, 'initiated_by', i.initiated_by,
        'pitch', i.pitch, 'created_at', i.created_at, 'responded_at', i.responded_at) ORDER BY i.created_at DESC), '[]'::jsonb)
      FROM (SELECT * FROM public.sponsor_artist_invites WHERE artist_id = uid ORDER BY created_at DESC LIMIT 50) i
      LEFT JOIN public.tracks t ON t.id = i.track_id),
    'cashouts', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'id', c.id, 'amount', c.amount, 'status', c.status, 'bank_name', c.bank_name,
        'account_number', c.account_number, 'account_name', c.account_name, 'reason', c.reason,
        'created_at', c.created_at, 'processed_at', c.processed_at) ORDER BY c.created_at DESC), '[]'::jsonb)
      FROM (SELECT * FROM public.cashout_requests WHERE user_id = uid ORDER BY created_at DESC LIMIT 20) c),
    'verification', jsonb_build_object(
      'active', active,
      'expires_at', CASE WHEN active THEN p.verification_expires_at END,
      'renew_from', CASE WHEN active THEN p.verification_expires_at - make_interval(days => renew_days) END,
      'can_buy', NOT active OR p.verification_expires_at <= now() + make_interval(days => renew_days),
      'fee', backline.setting_num('verification_fee')));
END $$;

-- The artist's earnings (sponsored-stream credits) per day, week or month
-- between two local dates, every period listed.
CREATE FUNCTION public.get_earnings_statement(p_period text, p_from date, p_to date)
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

-- ---------------------------------------------------------------------------
-- Sponsor: wallet with the low-balance flag and runway, sponsored tracks
-- and artists with streams paid and naira spent, and invites.
CREATE FUNCTION public.get_sponsor_dashboard() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_user();
  bal numeric := coalesce((SELECT balance FROM public.wallets WHERE id = uid), 0);
  per_stream numeric := backline.setting_num('stream_payment_amount');
  threshold numeric := backline.setting_num('low_balance_threshold');
  week numeric := (SELECT coalesce(sum(amount), 0) FROM public.transactions
    WHERE from_wallet = uid AND kind = 'sponsored_stream' AND created_at > now() - interval '7 days');
BEGIN
  RETURN jsonb_build_object(
    'wallet', jsonb_build_object('balance', bal, 'low', bal < threshold, 'threshold', threshold,
      'spent', (SELECT coalesce(sum(amount), 0) FROM public.transactions WHERE from_wallet = uid AND kind = 'sponsored_stream'),
      'streams_paid', (SELECT count(*) FROM public.transactions WHERE from_wallet = uid AND kind = 'sponsored_stream')),
    'runway', jsonb_build_object('per_stream', per_stream, 'streams_left', floor(bal / per_stream),
      'spent_7d', week, 'days_left', CASE WHEN week > 0 THEN round(bal / (week / 7), 1) END),
    'tracks', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'id', t.id, 'title', t.title, 'artist_id', t.artist_id, 'artist_name', backline.display_name(t.artist_id),
        'cover_url', t.cover_url, 'streams', t.streams, 'streams_paid', coalesce(x.n, 0), 'spent', coalesce(x.amt, 0))
        ORDER BY coalesce(x.amt, 0) DESC, t.created_at DESC), '[]'::jsonb)
      FROM public.tracks t
      LEFT JOIN (SELECT track_id, count(*) AS n, sum(amount) AS amt FROM public.transactions
                 WHERE from_wallet = uid AND kind = 'sponsored_stream' GROUP BY track_id) x ON x.track_id = t.id
      WHERE t.sponsor_id = uid AND t.is_sponsored),
    'artists', (SELECT coalesce(jsonb_agg(jsonb_build_object('artist_id', a.artist_id,
        'artist_name', backline.display_name(a.artist_id), 'tracks', a.tracks, 'streams_paid', a.n, 'spent', a.amt)
        ORDER BY a.amt DESC), '[]'::jsonb)
      FROM (SELECT t.artist_id, count(DISTINCT t.id) AS tracks, count(x.id) AS n, coalesce(sum(x.amount), 0) AS amt
            FROM public.tracks t
            LEFT JOIN public.transactions x ON x.track_id = t.id AND x.from_wallet = uid AND x.kind = 'sponsored_stream'
            WHERE t.sponsor_id = uid AND t.is_sponsored GROUP BY t.artist_id) a),
    'invites', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'id', i.id, 'artist_id', i.artist_id, 'artist_name', backline.display_name(i.artist_id),
        'track_id', i.track_id, 'track_title', t.title, 'status', i.status, 'initiated_by', i.initiated_by,
        'pitch', i.pitch, 'created_at', i.created_at, 'responded_at', i.responded_at) ORDER BY i.created_at DESC), '[]'::jsonb)
      FROM (SELECT * FROM public.sponsor_artist_invites WHERE sponsor_id = uid ORDER BY created_at DESC LIMIT 50) i
      LEFT JOIN public.tracks t ON t.id = i.track_id));
END $$;

-- The sponsor's spend over the last p_days local days (7 or 30 in the app):
-- per day (every day listed), per artist and per track.
CREATE FUNCTION public.get_sponsor_analytics(p_days integer DEFAULT 30) RETURNS jsonb
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

-- ---------------------------------------------------------------------------
-- Fan: today's allowance and when it resets (local midnight), this week's
-- streams, top artists, and the latest listening history with the server's
-- verdict and reason.
CREATE FUNCTION public.get_fan_dashboard() RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_user();
  lim public.daily_stream_limits := backline.daily_limit(uid);
  week_start timestamptz := (backline.today() - 6)::timestamp AT TIME ZONE 'Africa/Lagos';
BEGIN
  RETURN jsonb_build_object(
    'limit', jsonb_build_object('streams_remaining', lim.streams_remaining, 'daily_limit', lim.daily_limit,
      'resets_at', (backline.today() + 1)::timestamp AT TIME ZONE 'Africa/Lagos'),
    'week', jsonb_build_object(
      'valid', (SELECT count(*) FROM public.streams WHERE user_id = uid AND is_valid AND created_at >= week_start),
      'all', (SELECT count(*) FROM public.streams WHERE user_id = uid AND created_at >= week_start)),
    'top_artists', (SELECT coalesce(jsonb_agg(jsonb_build_object('artist_id', a.artist_id,
        'name', backline.display_name(a.artist_id), 'streams', a.n) ORDER BY a.n DESC), '[]'::jsonb)
      FROM (SELECT t.artist_id, count(*) AS n FROM public.streams s JOIN public.tracks t ON t.id = s.track_id
            WHERE s.user_id = uid AND s.is_valid GROUP BY t.artist_id ORDER BY count(*) DESC LIMIT 5) a),
    'favorites', (SELECT count(*) FROM public.favorites WHERE user_id = uid),
    'history', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', s.id, 'track_id', s.track_id,
        'title', coalesce(t.title, 'Deleted track'), 'artist_name', backline.display_name(t.artist_id),
        'created_at', s.created_at, 'duration', s.duration, 'is_valid', s.is_valid,
        'invalid_reason', s.invalid_reason) ORDER BY s.created_at DESC), '[]'::jsonb)
      FROM (SELECT * FROM public.streams WHERE user_id = uid ORDER BY created_at DESC LIMIT 10) s
      LEFT JOIN public.tracks t ON t.id = s.track_id));
END $$;

REVOKE EXECUTE ON FUNCTION
  public.get_artist_dashboard(), public.get_earnings_statement(text, date, date),
  public.get_sponsor_dashboard(), public.get_sponsor_analytics(integer), public.get_fan_dashboard()
FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION
  public.get_artist_dashboard(), public.get_earnings_statement(text, date, date),
  public.get_sponsor_dashboard(), public.get_sponsor_analytics(integer), public.get_fan_dashboard()
TO authenticated, service_role;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA backline FROM PUBLIC;
