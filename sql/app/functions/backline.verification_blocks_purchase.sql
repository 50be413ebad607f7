-- True while a verification is valid for more than the renewal days: no
-- purchase now. One rule for the checkout guard and the completion.
CREATE OR REPLACE FUNCTION backline.verification_blocks_purchase(p public.public_profiles) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT coalesce(p.is_verified AND p.verification_expires_at
    > now() + make_interval(days => backline.setting_num('verification_renewal_days')::int), false)
$$;

REVOKE ALL ON FUNCTION backline.verification_blocks_purchase(public.public_profiles) FROM PUBLIC, anon, authenticated, service_role;
