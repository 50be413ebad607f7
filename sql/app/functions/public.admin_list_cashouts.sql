-- Cash-out requests: pending ones oldest first (the queue, cursor = the last
-- row seen, rows after it), the others newest first (rows before it).
CREATE OR REPLACE FUNCTION public.admin_list_cashouts(p_status text DEFAULT 'pending', p_cursor_created timestamptz DEFAULT NULL,
  p_cursor_id uuid DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (id uuid, user_id uuid, user_name text, email text, amount numeric, status text, bank_name text,
  account_number text, account_name text, reason text, wallet_balance numeric, processed_by uuid,
  processed_by_name text, processed_at timestamptz, created_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  n int := backline.page_size(p_limit);
BEGIN
  PERFORM backline.admin_actor();
  IF p_status IS NOT NULL AND p_status NOT IN ('pending', 'completed', 'rejected') THEN
    RAISE EXCEPTION 'Unknown cash-out status %', p_status USING ERRCODE = 'P0001';
  END IF;
  RETURN QUERY
  WITH page AS (
    (SELECT c.* FROM public.cashout_requests c
     WHERE p_status = 'pending' AND c.status = 'pending'
       AND (p_cursor_created IS NULL OR (c.created_at, c.id) > (p_cursor_created, coalesce(p_cursor_id, '00000000-0000-0000-0000-000000000000')))
     ORDER BY c.created_at, c.id LIMIT n)
    UNION ALL
    (SELECT c.* FROM public.cashout_requests c
     WHERE p_status IS DISTINCT FROM 'pending' AND (p_status IS NULL OR c.status = p_status)
       AND (p_cursor_created IS NULL OR (c.created_at, c.id) < (p_cursor_created, coalesce(p_cursor_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')))
     ORDER BY c.created_at DESC, c.id DESC LIMIT n)
  )
  SELECT page.id, page.user_id, backline.person_name(page.user_id), u.email::text, page.amount, page.status,
    page.bank_name, page.account_number, page.account_name, page.reason, w.balance, page.processed_by,
    CASE WHEN page.processed_by IS NOT NULL THEN backline.person_name(page.processed_by) END,
    page.processed_at, page.created_at
  FROM page
  LEFT JOIN auth.users u ON u.id = page.user_id
  LEFT JOIN public.wallets w ON w.id = page.user_id
  ORDER BY CASE WHEN p_status = 'pending' THEN page.created_at END,
    CASE WHEN p_status = 'pending' THEN page.id END,
    page.created_at DESC, page.id DESC;
END $$;

REVOKE ALL ON FUNCTION public.admin_list_cashouts(text, timestamp with time zone, uuid, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_list_cashouts(text, timestamp with time zone, uuid, integer) TO authenticated, service_role;
