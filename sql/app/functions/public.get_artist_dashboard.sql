-- Artist: wallet (balance, held for pending cash-outs, earned, paid out),
-- tracks with valid and all streams, earnings and sponsor, invites, recent
-- cash-outs and the verification status.
CREATE OR REPLACE FUNCTION public.get_artist_dashboard() RETURNS jsonb
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

REVOKE ALL ON FUNCTION public.get_artist_dashboard() FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_artist_dashboard() TO authenticated, service_role;
