-- A new role brings the role profile it needs (an artist's tracks hang off
-- artist_profiles); the old role profile is kept, with its history.
CREATE OR REPLACE FUNCTION public.admin_set_user_role(p_user_id uuid, p_role public.app_role, p_reason text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  v_reason text := backline.require_reason(p_reason);
  before jsonb;
  after jsonb;
  display text;
BEGIN
  IF p_role IS NULL THEN
    RAISE EXCEPTION 'Choose a role' USING ERRCODE = 'P0001';
  END IF;
  PERFORM 1 FROM public.user_roles WHERE user_id = p_user_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'User not found' USING ERRCODE = 'P0001';
  END IF;
  before := backline.account_state(p_user_id);
  IF before ->> 'role' = p_role::text THEN
    RAISE EXCEPTION 'User already has this role' USING ERRCODE = 'P0001';
  END IF;
  UPDATE public.user_roles SET role = p_role WHERE user_id = p_user_id;
  SELECT coalesce(display_name, username) INTO display FROM public.public_profiles WHERE id = p_user_id;
  IF p_role = 'artist' THEN
    INSERT INTO public.artist_profiles (id, name) VALUES (p_user_id, coalesce(display, 'Artist')) ON CONFLICT (id) DO NOTHING;
  ELSIF p_role = 'sponsor' THEN
    INSERT INTO public.sponsor_profiles (id, name) VALUES (p_user_id, display) ON CONFLICT (id) DO NOTHING;
  ELSIF p_role = 'fan' THEN
    INSERT INTO public.fan_profiles (id) VALUES (p_user_id) ON CONFLICT (id) DO NOTHING;
  END IF;
  after := backline.account_state(p_user_id);
  PERFORM backline.audit(actor, 'user.role', 'user', p_user_id::text, v_reason, before, after);
  PERFORM backline.notify(p_user_id, 'system_update', 'Your role changed',
    format('Your account is now a %s account.', p_role), jsonb_build_object('role', p_role));
  RETURN jsonb_build_object('success', true, 'user_id', p_user_id) || after;
END $$;

REVOKE ALL ON FUNCTION public.admin_set_user_role(uuid, public.app_role, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_set_user_role(uuid, public.app_role, text) TO authenticated, service_role;
