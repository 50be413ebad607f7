CREATE OR REPLACE FUNCTION backline.display_name(p_id uuid) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT coalesce(
    (SELECT coalesce(nullif(company_name, ''), nullif(name, '')) FROM public.sponsor_profiles WHERE id = p_id),
    (SELECT nullif(name, '') FROM public.artist_profiles WHERE id = p_id),
    (SELECT coalesce(nullif(display_name, ''), username) FROM public.public_profiles WHERE id = p_id),
    'Someone')
$$;

REVOKE ALL ON FUNCTION backline.display_name(uuid) FROM PUBLIC, anon, authenticated, service_role;
