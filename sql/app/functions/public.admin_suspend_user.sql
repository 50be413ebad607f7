-- Suspends an account (backline.caller_is_active says what that takes away),
-- tells the user why, and has realtime drop their private channels.
CREATE OR REPLACE FUNCTION public.admin_suspend_user(p_user_id uuid, p_reason text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  v_reason text := backline.require_reason(p_reason);
  before jsonb;
  after jsonb;
BEGIN
  PERFORM 1 FROM public.public_profiles WHERE id = p_user_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'User not found' USING ERRCODE = 'P0001';
  END IF;
  before := backline.account_state(p_user_id);
  IF (before ->> 'is_suspended')::boolean THEN
    RAISE EXCEPTION 'User is already suspended' USING ERRCODE = 'P0001';
  END IF;
  UPDATE public.public_profiles SET is_suspended = true, suspended_reason = v_reason, suspended_at = now()
  WHERE id = p_user_id;
  after := backline.account_state(p_user_id);
  PERFORM backline.audit(actor, 'user.suspend', 'user', p_user_id::text, v_reason, before, after);
  PERFORM backline.notify(p_user_id, 'system_update', 'Account suspended',
    format('Your account has been suspended: %s', v_reason), jsonb_build_object('reason', v_reason));
  -- Realtime re-checks the user's private channels on every node and closes
  -- those they may no longer join (the platform's function, when present).
  IF to_regprocedure('realtime.reauthorize_user(uuid)') IS NOT NULL THEN
    EXECUTE 'SELECT realtime.reauthorize_user($1)' USING p_user_id;
  END IF;
  RETURN jsonb_build_object('success', true, 'user_id', p_user_id) || after;
END $$;

REVOKE ALL ON FUNCTION public.admin_suspend_user(uuid, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_suspend_user(uuid, text) TO authenticated, service_role;
