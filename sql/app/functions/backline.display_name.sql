-- A person's name for notifications and other single lookups made with the
-- caller's rights: backline.person_name's rule (its one home), run with the
-- owner's rights so every profile table may be read.
CREATE OR REPLACE FUNCTION backline.display_name(p_id uuid) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT backline.person_name(p_id)
$$;

REVOKE ALL ON FUNCTION backline.display_name(uuid) FROM PUBLIC, anon, authenticated, service_role;
