-- Home-page figures anyone may see, without exposing wallets or streams'
-- private columns.
CREATE OR REPLACE FUNCTION public.get_platform_stats() RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT jsonb_build_object(
    'total_users', (SELECT count(*) FROM public.user_roles),
    'fans', (SELECT count(*) FROM public.user_roles WHERE role = 'fan'),
    'artists', (SELECT count(*) FROM public.user_roles WHERE role = 'artist'),
    'sponsors', (SELECT count(*) FROM public.user_roles WHERE role = 'sponsor'),
    'admins', (SELECT count(*) FROM public.user_roles WHERE role = 'admin'),
    'total_tracks', (SELECT count(*) FROM public.tracks),
    'total_streams', (SELECT count(*) FROM public.streams WHERE is_valid),
    'sponsored_streams', (SELECT count(*) FROM public.streams s JOIN public.tracks t ON t.id = s.track_id
                          WHERE s.is_valid AND t.is_sponsored),
    'total_wallet_balance', (SELECT coalesce(sum(balance), 0) FROM public.wallets WHERE kind = 'user' AND currency = 'NGN'),
    'total_sponsor_payments', (SELECT coalesce(sum(amount), 0) FROM public.transactions WHERE kind = 'sponsored_stream'),
    'total_paid_out', (SELECT coalesce(sum(amount), 0) FROM public.cashout_requests WHERE status = 'completed'))
$$;

REVOKE ALL ON FUNCTION public.get_platform_stats() FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_platform_stats() TO PUBLIC, anon, authenticated, service_role;
