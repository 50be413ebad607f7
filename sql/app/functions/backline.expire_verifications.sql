-- Sessions and presence.
CREATE OR REPLACE FUNCTION backline.expire_verifications() RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  UPDATE public.public_profiles SET is_verified = false
  WHERE is_verified AND verification_expires_at IS NOT NULL AND verification_expires_at <= now()
$$;

REVOKE ALL ON FUNCTION backline.expire_verifications() FROM PUBLIC, anon, authenticated, service_role;
