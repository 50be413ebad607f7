-- Sponsor: wallet with the low-balance flag and runway, sponsored tracks
-- and artists with streams paid and naira spent, and invites. What the
-- sponsor has paid (in all, per track, per artist) comes from
-- backline.sponsorship_spend, kept as each stream is paid.
CREATE OR REPLACE FUNCTION public.get_sponsor_dashboard() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_user();
  bal numeric := coalesce((SELECT balance FROM public.wallets WHERE id = uid), 0);
  per_stream numeric := backline.setting_num('stream_payment_amount');
  threshold numeric := backline.setting_num('low_balance_threshold');
  week numeric := (SELECT coalesce(sum(amount), 0) FROM public.transactions
    WHERE from_wallet = uid AND kind = 'sponsored_stream' AND created_at > now() - interval '7 days');
  spent numeric;
  paid bigint;
BEGIN
  SELECT coalesce(sum(amount), 0), coalesce(sum(streams), 0) INTO spent, paid
  FROM backline.sponsorship_spend WHERE sponsor_id = uid;
  RETURN jsonb_build_object(
    'wallet', jsonb_build_object('balance', bal, 'low', bal < threshold, 'threshold', threshold,
      'spent', spent, 'streams_paid', paid),
    'runway', jsonb_build_object('per_stream', per_stream, 'streams_left', floor(bal / per_stream),
      'spent_7d', week, 'days_left', CASE WHEN week > 0 THEN round(bal / (week / 7), 1) END),
    'tracks', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'id', t.id, 'title', t.title, 'artist_id', t.artist_id, 'artist_name', backline.person_name(t.artist_id),
        'cover_url', t.cover_url, 'streams', t.streams, 'streams_paid', coalesce(x.streams, 0), 'spent', coalesce(x.amount, 0))
        ORDER BY coalesce(x.amount, 0) DESC, t.created_at DESC), '[]'::jsonb)
      FROM public.tracks t
      LEFT JOIN backline.sponsorship_spend x ON x.sponsor_id = uid AND x.track_id = t.id
      WHERE t.sponsor_id = uid AND t.is_sponsored),
    'artists', (SELECT coalesce(jsonb_agg(jsonb_build_object('artist_id', a.artist_id,
        'artist_name', backline.person_name(a.artist_id), 'tracks', a.tracks, 'streams_paid', a.n, 'spent', a.amt)
        ORDER BY a.amt DESC), '[]'::jsonb)
      FROM (SELECT t.artist_id, count(*) AS tracks, coalesce(sum(x.streams), 0) AS n, coalesce(sum(x.amount), 0) AS amt
            FROM public.tracks t
            LEFT JOIN backline.sponsorship_spend x ON x.sponsor_id = uid AND x.track_id = t.id
            WHERE t.sponsor_id = uid AND t.is_sponsored GROUP BY t.artist_id) a),
    'invites', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'id', i.id, 'artist_id', i.artist_id, 'artist_name', backline.person_name(i.artist_id),
        'track_id', i.track_id, 'track_title', t.title, 'status', i.status, 'initiated_by', i.initiated_by,
        'pitch', i.pitch, 'created_at', i.created_at, 'responded_at', i.responded_at) ORDER BY i.created_at DESC), '[]'::jsonb)
      FROM (SELECT * FROM public.sponsor_artist_invites WHERE sponsor_id = uid ORDER BY created_at DESC LIMIT 50) i
      LEFT JOIN public.tracks t ON t.id = i.track_id));
END $$;

REVOKE ALL ON FUNCTION public.get_sponsor_dashboard() FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_sponsor_dashboard() TO authenticated, service_role;
