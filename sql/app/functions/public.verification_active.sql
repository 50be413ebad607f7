-- The verification flag counts only while its expiry is in the future.
CREATE OR REPLACE FUNCTION public.verification_active(p public.public_profiles) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT p.is_verified AND (p.verification_expires_at IS NULL OR p.verification_expires_at > now())
$$;

REVOKE ALL ON FUNCTION public.verification_active(public.public_profiles) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.verification_active(public.public_profiles) TO PUBLIC, anon, authenticated, service_role;
