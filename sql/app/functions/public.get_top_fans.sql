-- Top fans: ranked by valid streams, role fan only (spec section 9).
CREATE OR REPLACE FUNCTION public.get_top_fans(p_limit integer DEFAULT 8)
RETURNS TABLE (user_id uuid, display_name text, username text, avatar_url text, stream_count bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT p.id, p.display_name, p.username, p.avatar_url, count(*) AS stream_count
  FROM public.streams s
  JOIN public.user_roles r ON r.user_id = s.user_id AND r.role = 'fan'
  JOIN public.public_profiles p ON p.id = s.user_id
  WHERE s.is_valid
  GROUP BY p.id
  ORDER BY stream_count DESC, p.id
  LIMIT least(greatest(coalesce(p_limit, 8), 1), 100)
$$;

REVOKE ALL ON FUNCTION public.get_top_fans(integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_top_fans(integer) TO PUBLIC, anon, authenticated, service_role;
