CREATE OR REPLACE FUNCTION public.admin_list_verifications(p_before_granted timestamptz DEFAULT NULL, p_before_id uuid DEFAULT NULL,
  p_limit integer DEFAULT 50)
RETURNS TABLE (id uuid, user_id uuid, user_name text, role public.app_role, source text, tx_ref text, provider text,
  total numeric, granted_at timestamptz, expires_at timestamptz, active boolean)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
BEGIN
  PERFORM backline.admin_actor();
  RETURN QUERY
  WITH page AS (
    SELECT v.* FROM public.verifications v
    WHERE p_before_granted IS NULL OR (v.granted_at, v.id) < (p_before_granted, coalesce(p_before_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY v.granted_at DESC, v.id DESC
    LIMIT backline.page_size(p_limit)
  )
  SELECT page.id, page.user_id, backline.person_name(page.user_id), p.role, page.source, pay.tx_ref, pay.provider,
    pay.total, page.granted_at, page.expires_at, page.expires_at > now()
  FROM page
  LEFT JOIN public.public_profiles p ON p.id = page.user_id
  LEFT JOIN public.payments pay ON pay.id = page.payment_id
  ORDER BY page.granted_at DESC, page.id DESC;
END $$;

REVOKE ALL ON FUNCTION public.admin_list_verifications(timestamp with time zone, uuid, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_list_verifications(timestamp with time zone, uuid, integer) TO authenticated, service_role;
