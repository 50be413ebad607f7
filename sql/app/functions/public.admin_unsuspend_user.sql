CREATE OR REPLACE FUNCTION public.admin_unsuspend_user(p_user_id uuid, p_reason text DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  before jsonb;
  after jsonb;
BEGIN
  PERFORM 1 FROM public.public_profiles WHERE id = p_user_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'User not found' USING ERRCODE = 'P0001';
  END IF;
  before := backline.account_state(p_user_id);
  IF NOT (before ->> 'is_suspended')::boolean THEN
    RAISE EXCEPTION 'User is not suspended' USING ERRCODE = 'P0001';
  END IF;
  UPDATE public.public_profiles SET is_suspended = false, suspended_reason = NULL, suspended_at = NULL
  WHERE id = p_user_id;
  after := backline.account_state(p_user_id);
  PERFORM backline.audit(actor, 'user.unsuspend', 'user', p_user_id::text, p_reason, before, after);
  PERFORM backline.notify(p_user_id, 'system_update', 'Account restored', 'Your account is active again.');
  RETURN jsonb_build_object('success', true, 'user_id', p_user_id) || after;
END $$;

REVOKE ALL ON FUNCTION public.admin_unsuspend_user(uuid, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_unsuspend_user(uuid, text) TO authenticated, service_role;
