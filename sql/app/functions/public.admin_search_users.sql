-- Users, newest first, filtered by a search text (e-mail, username, names),
-- role, verification and suspension.
CREATE OR REPLACE FUNCTION public.admin_search_users(p_query text DEFAULT NULL, p_role public.app_role DEFAULT NULL,
  p_verified boolean DEFAULT NULL, p_suspended boolean DEFAULT NULL, p_before_created timestamptz DEFAULT NULL,
  p_before_id uuid DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (id uuid, email text, role public.app_role, display_name text, username text, avatar_url text,
  is_verified boolean, is_suspended boolean, suspended_reason text, balance numeric, created_at timestamptz,
  last_sign_in_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  pat text := CASE WHEN coalesce(btrim(p_query), '') <> '' THEN backline.contains_pattern(p_query) END;
BEGIN
  PERFORM backline.admin_actor();
  RETURN QUERY
  WITH page AS (
    -- A search walks the search table (by text, or newest first).
    (SELECT p.* FROM backline.user_search s JOIN public.public_profiles p ON p.id = s.id
     WHERE pat IS NOT NULL AND s.doc LIKE pat
       AND (p_role IS NULL OR p.role = p_role)
       AND (p_verified IS NULL OR p.is_verified = p_verified)
       AND (p_suspended IS NULL OR p.is_suspended = p_suspended)
       AND (p_before_created IS NULL OR (s.created_at, s.id) < (p_before_created, coalesce(p_before_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')))
     ORDER BY s.created_at DESC, s.id DESC
     LIMIT backline.page_size(p_limit))
    UNION ALL
    -- Otherwise the profiles, along the index that fits the filters.
    (SELECT p.* FROM public.public_profiles p
     WHERE pat IS NULL
       AND (p_role IS NULL OR p.role = p_role)
       AND (p_verified IS NULL OR p.is_verified = p_verified)
       AND (p_suspended IS NULL OR p.is_suspended = p_suspended)
       AND (p_before_created IS NULL OR (p.created_at, p.id) < (p_before_created, coalesce(p_before_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')))
     ORDER BY p.created_at DESC, p.id DESC
     LIMIT backline.page_size(p_limit))
  )
  SELECT page.id, u.email::text, page.role, page.display_name, page.username, page.avatar_url, page.is_verified,
    page.is_suspended, page.suspended_reason, w.balance, page.created_at, u.last_sign_in_at
  FROM page
  JOIN auth.users u ON u.id = page.id
  LEFT JOIN public.wallets w ON w.id = page.id
  ORDER BY page.created_at DESC, page.id DESC;
END $$;

REVOKE ALL ON FUNCTION public.admin_search_users(text, public.app_role, boolean, boolean, timestamp with time zone, uuid, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_search_users(text, public.app_role, boolean, boolean, timestamp with time zone, uuid, integer) TO authenticated, service_role;
