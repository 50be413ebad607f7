CREATE OR REPLACE FUNCTION public.admin_list_transactions(p_kind text DEFAULT NULL, p_user_id uuid DEFAULT NULL,
  p_reference text DEFAULT NULL, p_from timestamptz DEFAULT NULL, p_to timestamptz DEFAULT NULL,
  p_before_created timestamptz DEFAULT NULL, p_before_id uuid DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (id uuid, reference text, kind text, from_wallet uuid, from_name text, to_wallet uuid, to_name text,
  amount numeric, from_balance_after numeric, to_balance_after numeric, track_id uuid, metadata jsonb,
  created_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  n int := backline.page_size(p_limit);
  c_at timestamptz := coalesce(p_before_created, 'infinity');
  c_id uuid := coalesce(p_before_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff');
  lo timestamptz := coalesce(p_from, '-infinity');
  hi timestamptz := coalesce(p_to, 'infinity');
  ref text := nullif(btrim(coalesce(p_reference, '')), '');
BEGIN
  PERFORM backline.admin_actor();
  RETURN QUERY
  WITH page AS (
    -- A reference names one movement.
    (SELECT t.* FROM public.transactions t WHERE ref IS NOT NULL AND t.reference = ref
       AND (p_kind IS NULL OR t.kind = p_kind)
       AND (p_user_id IS NULL OR p_user_id IN (t.from_wallet, t.to_wallet))
       AND (t.created_at, t.id) < (c_at, c_id))
    UNION ALL
    -- One user's movements: each side along its own index, then merged.
    (SELECT t.* FROM public.transactions t
     WHERE ref IS NULL AND p_user_id IS NOT NULL AND t.from_wallet = p_user_id
       AND (p_kind IS NULL OR t.kind = p_kind) AND t.created_at >= lo AND t.created_at < hi
       AND (t.created_at, t.id) < (c_at, c_id)
     ORDER BY t.created_at DESC, t.id DESC LIMIT n)
    UNION ALL
    (SELECT t.* FROM public.transactions t
     WHERE ref IS NULL AND p_user_id IS NOT NULL AND t.to_wallet = p_user_id
       AND (p_kind IS NULL OR t.kind = p_kind) AND t.created_at >= lo AND t.created_at < hi
       AND (t.created_at, t.id) < (c_at, c_id)
     ORDER BY t.created_at DESC, t.id DESC LIMIT n)
    UNION ALL
    (SELECT t.* FROM public.transactions t
     WHERE ref IS NULL AND p_user_id IS NULL AND p_kind IS NOT NULL AND t.kind = p_kind
       AND t.created_at >= lo AND t.created_at < hi AND (t.created_at, t.id) < (c_at, c_id)
     ORDER BY t.created_at DESC, t.id DESC LIMIT n)
    UNION ALL
    (SELECT t.* FROM public.transactions t
     WHERE ref IS NULL AND p_user_id IS NULL AND p_kind IS NULL
       AND t.created_at >= lo AND t.created_at < hi AND (t.created_at, t.id) < (c_at, c_id)
     ORDER BY t.created_at DESC, t.id DESC LIMIT n)
  ), top AS (
    SELECT * FROM page ORDER BY page.created_at DESC, page.id DESC LIMIT n
  )
  -- A wallet's name: the system account's, or its owner's.
  SELECT top.id, top.reference, top.kind, top.from_wallet,
    coalesce(fw.account, backline.person_name(fw.user_id)), top.to_wallet,
    coalesce(tw.account, backline.person_name(tw.user_id)), top.amount, top.from_balance_after, top.to_balance_after,
    top.track_id, top.metadata, top.created_at
  FROM top
  JOIN public.wallets fw ON fw.id = top.from_wallet
  JOIN public.wallets tw ON tw.id = top.to_wallet
  ORDER BY top.created_at DESC, top.id DESC;
END $$;

REVOKE ALL ON FUNCTION public.admin_list_transactions(text, uuid, text, timestamp with time zone, timestamp with time zone, timestamp with time zone, uuid, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_list_transactions(text, uuid, text, timestamp with time zone, timestamp with time zone, timestamp with time zone, uuid, integer) TO authenticated, service_role;
