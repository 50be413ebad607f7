-- has_valid_kyc of spec section 3, as a computed column for the REST layer
-- (select=*,has_valid_kyc).
CREATE OR REPLACE FUNCTION public.has_valid_kyc(a public.artist_profiles) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT a.kyc_status = 'approved' AND (a.kyc_expiry_date IS NULL OR a.kyc_expiry_date > now())
$$;

REVOKE ALL ON FUNCTION public.has_valid_kyc(public.artist_profiles) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.has_valid_kyc(public.artist_profiles) TO PUBLIC, anon, authenticated, service_role;
