-- Suspension, sponsorship, fraud, duplicates, devices.
CREATE OR REPLACE FUNCTION public.is_user_suspended(p_user_id uuid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT coalesce((SELECT is_suspended FROM public.public_profiles WHERE id = p_user_id), false)
$$;

REVOKE ALL ON FUNCTION public.is_user_suspended(uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.is_user_suspended(uuid) TO authenticated, service_role;
