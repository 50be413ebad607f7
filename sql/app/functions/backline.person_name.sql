-- A person's name as the app shows it (a sponsor's company, an artist's
-- name, else the profile's), the rule's one home. No SECURITY DEFINER or SET
-- clause, so the planner inlines it: a list of 50 rows pays for 50 index
-- lookups and not for 50 function-call context switches. Called from
-- SECURITY DEFINER functions, whose rights it runs with
-- (backline.display_name wraps it for the others).
CREATE OR REPLACE FUNCTION backline.person_name(p_id uuid) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    (SELECT coalesce(nullif(company_name, ''), nullif(name, '')) FROM public.sponsor_profiles WHERE id = p_id),
    (SELECT nullif(name, '') FROM public.artist_profiles WHERE id = p_id),
    (SELECT coalesce(nullif(display_name, ''), username) FROM public.public_profiles WHERE id = p_id),
    'Someone')
$$;

REVOKE ALL ON FUNCTION backline.person_name(uuid) FROM PUBLIC, anon, authenticated, service_role;
