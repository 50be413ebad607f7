-- The part of a profile a suspension or role change is about.
CREATE OR REPLACE FUNCTION backline.account_state(p_user_id uuid) RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT jsonb_build_object('role', r.role, 'is_suspended', p.is_suspended, 'suspended_reason', p.suspended_reason,
    'suspended_at', p.suspended_at)
  FROM public.public_profiles p LEFT JOIN public.user_roles r ON r.user_id = p.id WHERE p.id = p_user_id
$$;

REVOKE ALL ON FUNCTION backline.account_state(uuid) FROM PUBLIC, anon, authenticated, service_role;
