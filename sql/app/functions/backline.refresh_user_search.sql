CREATE OR REPLACE FUNCTION backline.refresh_user_search(p_id uuid) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  INSERT INTO backline.user_search (id, created_at, doc)
  SELECT p.id, p.created_at, lower(concat_ws(' ', p.username, p.display_name, p.name, u.email))
  FROM public.public_profiles p LEFT JOIN auth.users u ON u.id = p.id WHERE p.id = p_id
  ON CONFLICT (id) DO UPDATE SET created_at = EXCLUDED.created_at, doc = EXCLUDED.doc
$$;

REVOKE ALL ON FUNCTION backline.refresh_user_search(uuid) FROM PUBLIC, anon, authenticated, service_role;
