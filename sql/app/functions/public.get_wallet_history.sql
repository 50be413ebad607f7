-- The wallet's history page (/transactions): the caller's own movements,
-- newest first, a page by offset, with the count; optionally one kind and
-- [p_from, p_to). Each side of a movement (paid from, paid to) is read
-- along its own index and the two are merged, so a page costs what the
-- user's rows cost. The same read through the table (either side, under
-- RLS, ordered by time) walked the whole ledger's newest-first index.
CREATE OR REPLACE FUNCTION public.get_wallet_history(p_kind text DEFAULT NULL, p_from timestamptz DEFAULT NULL,
  p_to timestamptz DEFAULT NULL, p_offset integer DEFAULT 0, p_limit integer DEFAULT 20)
RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  uid uuid := backline.require_user();
  n int := least(greatest(coalesce(p_limit, 20), 1), 5000);
  skip int := least(greatest(coalesce(p_offset, 0), 0), 1000000);
  lo timestamptz := coalesce(p_from, '-infinity');
  hi timestamptz := coalesce(p_to, 'infinity');
BEGIN
  RETURN jsonb_build_object(
    'count',
      (SELECT count(*) FROM public.transactions t WHERE t.from_wallet = uid AND (p_kind IS NULL OR t.kind = p_kind)
         AND t.created_at >= lo AND t.created_at < hi)
      + (SELECT count(*) FROM public.transactions t WHERE t.to_wallet = uid AND (p_kind IS NULL OR t.kind = p_kind)
         AND t.created_at >= lo AND t.created_at < hi),
    'rows', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', p.id, 'reference', p.reference, 'kind', p.kind,
        'amount', p.amount, 'from_wallet', p.from_wallet, 'to_wallet', p.to_wallet,
        'from_balance_after', p.from_balance_after, 'to_balance_after', p.to_balance_after,
        'created_at', p.created_at, 'track_id', p.track_id) ORDER BY p.created_at DESC, p.id DESC), '[]'::jsonb)
      FROM (SELECT * FROM (
          (SELECT t.* FROM public.transactions t WHERE t.from_wallet = uid AND (p_kind IS NULL OR t.kind = p_kind)
             AND t.created_at >= lo AND t.created_at < hi ORDER BY t.created_at DESC, t.id DESC LIMIT skip + n)
          UNION ALL
          (SELECT t.* FROM public.transactions t WHERE t.to_wallet = uid AND (p_kind IS NULL OR t.kind = p_kind)
             AND t.created_at >= lo AND t.created_at < hi ORDER BY t.created_at DESC, t.id DESC LIMIT skip + n)
        ) sides ORDER BY sides.created_at DESC, sides.id DESC OFFSET skip LIMIT n) p));
END $$;

REVOKE ALL ON FUNCTION public.get_wallet_history(text, timestamp with time zone, timestamp with time zone, integer, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_wallet_history(text, timestamp with time zone, timestamp with time zone, integer, integer) TO authenticated, service_role;
