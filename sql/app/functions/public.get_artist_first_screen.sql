-- The artist's first screen: the dashboard, the earnings statement for the
-- period the page opens on, and the KYC card (the profile's KYC state and
-- the newest submission).
CREATE OR REPLACE FUNCTION public.get_artist_first_screen(p_period text, p_from date, p_to date) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY INVOKER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
BEGIN
  RETURN jsonb_build_object(
    'dashboard', public.get_artist_dashboard(),
    'statement', (SELECT coalesce(jsonb_agg(jsonb_build_object('period_start', s.period_start, 'streams', s.streams,
        'amount', s.amount) ORDER BY s.period_start), '[]'::jsonb)
      FROM public.get_earnings_statement(p_period, p_from, p_to) s),
    'kyc', jsonb_build_object(
      'profile', (SELECT jsonb_build_object('kyc_status', a.kyc_status, 'kyc_expiry_date', a.kyc_expiry_date)
                  FROM public.artist_profiles a WHERE a.id = uid),
      'latest', (SELECT jsonb_build_object('id', k.id, 'status', k.status, 'reason', k.reason,
                   'expires_at', k.expires_at, 'created_at', k.created_at, 'document_type', k.document_type)
                 FROM public.kyc_submissions k WHERE k.artist_id = uid ORDER BY k.created_at DESC LIMIT 1)));
END $$;

REVOKE ALL ON FUNCTION public.get_artist_first_screen(text, date, date) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_artist_first_screen(text, date, date) TO authenticated, service_role;
