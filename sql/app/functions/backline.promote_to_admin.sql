-- Operator command: make an existing user an admin (psql as the owner; not
-- callable through the API).
CREATE OR REPLACE FUNCTION backline.promote_to_admin(p_user_id uuid) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM auth.users WHERE id = p_user_id) THEN
    RAISE EXCEPTION 'no user %', p_user_id USING ERRCODE = 'P0002';
  END IF;
  INSERT INTO public.user_roles (user_id, role) VALUES (p_user_id, 'admin')
  ON CONFLICT (user_id) DO UPDATE SET role = 'admin';
  UPDATE public.public_profiles SET role = 'admin' WHERE id = p_user_id;
  PERFORM backline.log_activity(NULL, 'user.promote_admin', 'user', p_user_id::text);
END $$;

REVOKE ALL ON FUNCTION backline.promote_to_admin(uuid) FROM PUBLIC, anon, authenticated, service_role;
