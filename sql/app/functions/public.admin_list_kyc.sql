CREATE OR REPLACE FUNCTION public.admin_list_kyc(p_status text DEFAULT 'pending', p_cursor_created timestamptz DEFAULT NULL,
  p_cursor_id uuid DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (id uuid, artist_id uuid, artist_name text, full_name text, document_type text, document_number text,
  document_path text, status text, reason text, expires_at timestamptz, reviewed_by_name text,
  reviewed_at timestamptz, kyc_status text, kyc_expiry_date timestamptz, created_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  n int := backline.page_size(p_limit);
BEGIN
  PERFORM backline.admin_actor();
  RETURN QUERY
  WITH page AS (
    -- The pending queue oldest first; decided ones newest first.
    (SELECT k.* FROM public.kyc_submissions k
     WHERE p_status = 'pending' AND k.status = 'pending'
       AND (p_cursor_created IS NULL OR (k.created_at, k.id) > (p_cursor_created, coalesce(p_cursor_id, '00000000-0000-0000-0000-000000000000')))
     ORDER BY k.created_at, k.id LIMIT n)
    UNION ALL
    (SELECT k.* FROM public.kyc_submissions k
     WHERE p_status IS DISTINCT FROM 'pending' AND (p_status IS NULL OR k.status = p_status)
       AND (p_cursor_created IS NULL OR (k.created_at, k.id) < (p_cursor_created, coalesce(p_cursor_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')))
     ORDER BY k.created_at DESC, k.id DESC LIMIT n)
  )
  SELECT page.id, page.artist_id, backline.person_name(page.artist_id), page.full_name, page.document_type,
    page.document_number, page.document_path, page.status, page.reason, page.expires_at,
    CASE WHEN page.reviewed_by IS NOT NULL THEN backline.person_name(page.reviewed_by) END, page.reviewed_at,
    a.kyc_status, a.kyc_expiry_date, page.created_at
  FROM page JOIN public.artist_profiles a ON a.id = page.artist_id
  ORDER BY CASE WHEN p_status = 'pending' THEN page.created_at END, CASE WHEN p_status = 'pending' THEN page.id END,
    page.created_at DESC, page.id DESC;
END $$;

REVOKE ALL ON FUNCTION public.admin_list_kyc(text, timestamp with time zone, uuid, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_list_kyc(text, timestamp with time zone, uuid, integer) TO authenticated, service_role;
