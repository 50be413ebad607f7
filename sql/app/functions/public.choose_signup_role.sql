-- choose_signup_role: the role chooser's answer for an account that has no
-- role yet. Once only; admin is never a choice.
CREATE OR REPLACE FUNCTION public.choose_signup_role(p_role public.app_role) RETURNS public.app_role
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  display text;
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'Sign in to choose a role' USING ERRCODE = '42501';
  END IF;
  PERFORM backline.require_active();
  IF p_role IS NULL OR p_role NOT IN ('fan', 'artist', 'sponsor') THEN
    RAISE EXCEPTION 'Role must be fan, artist or sponsor' USING ERRCODE = '22023';
  END IF;
  -- Locked, so two choices racing cannot both pass the check.
  SELECT display_name INTO display FROM public.public_profiles WHERE id = uid FOR UPDATE;
  IF EXISTS (SELECT 1 FROM public.user_roles WHERE user_id = uid) THEN
    RAISE EXCEPTION 'Your account already has a role' USING ERRCODE = '42501';
  END IF;
  UPDATE public.public_profiles SET role = p_role WHERE id = uid;
  PERFORM backline.assign_role(uid, p_role, display, '{}');
  PERFORM backline.log_activity(uid, 'user.choose_role', 'user', uid::text, jsonb_build_object('role', p_role));
  RETURN p_role;
END $$;

REVOKE ALL ON FUNCTION public.choose_signup_role(public.app_role) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.choose_signup_role(public.app_role) TO authenticated, service_role;
