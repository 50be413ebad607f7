-- Suspension means suspended. This is the rule: the caller may act as a
-- signed-in user unless their account is suspended (visitors and the service
-- role are never suspended). Policies match the caller's own rows against
-- backline.active_uid(), which is built on it, and functions that act for
-- the caller refuse a suspended one with backline.require_active. A
-- suspended account keeps a session that can read its own suspension
-- (public_profiles is public, is_user_suspended) and sign out, and nothing
-- else; lifting the suspension restores everything at once.
CREATE OR REPLACE FUNCTION backline.caller_is_active() RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT NOT coalesce((SELECT is_suspended FROM public.public_profiles WHERE id = auth.uid()), false)
$$;

REVOKE ALL ON FUNCTION backline.caller_is_active() FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION backline.caller_is_active() TO anon, authenticated, service_role;
