-- A person's name as lists show it (a sponsor's company, an artist's name,
-- else the profile's): backline.display_name's rule, without SECURITY
-- DEFINER or a SET clause, so a list of 50 rows pays for 50 index lookups
-- and not for 50 function-call context switches. Only ever called from the
-- SECURITY DEFINER admin functions, whose rights it runs with.
CREATE OR REPLACE FUNCTION backline.person_name(p_id uuid) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    (SELECT coalesce(nullif(company_name, ''), nullif(name, '')) FROM public.sponsor_profiles WHERE id = p_id),
    (SELECT nullif(name, '') FROM public.artist_profiles WHERE id = p_id),
    (SELECT coalesce(nullif(display_name, ''), username) FROM public.public_profiles WHERE id = p_id),
    'Someone')
$$;

REVOKE ALL ON FUNCTION backline.person_name(uuid) FROM PUBLIC, anon, authenticated, service_role;
