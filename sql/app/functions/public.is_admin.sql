-- Who is an admin. A suspended admin keeps the role but loses its powers,
-- in the policies (is_admin) as in the functions (admin_actor). SECURITY
-- DEFINER, so policies can call it without the caller reading user_roles
-- through its own policies (no recursion).
CREATE OR REPLACE FUNCTION public.is_admin() RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT EXISTS (SELECT 1 FROM public.user_roles r JOIN public.public_profiles p ON p.id = r.user_id
                 WHERE r.user_id = auth.uid() AND r.role = 'admin' AND NOT p.is_suspended)
$$;

REVOKE ALL ON FUNCTION public.is_admin() FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.is_admin() TO PUBLIC, anon, authenticated, service_role;
