-- The spec's section 7 procedures are SECURITY DEFINER with a fixed
-- search_path and act only for the caller: a p_user_id naming someone else
-- is refused (42501), and p_ip_address arguments are accepted but ignored in
-- favour of the address the gateway saw.
--
-- Refuses to act for anyone but the caller, unless the caller is the
-- service role, the owner, or an admin, and refuses a suspended caller.
CREATE OR REPLACE FUNCTION backline.require_self(p_user_id uuid) RETURNS uuid
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE uid uuid := auth.uid();
BEGIN
  IF current_setting('role', true) NOT IN ('anon', 'authenticated') THEN
    IF p_user_id IS NULL THEN
      RAISE EXCEPTION 'p_user_id is required' USING ERRCODE = '22023';
    END IF;
    RETURN p_user_id;
  END IF;
  IF uid IS NULL THEN
    RAISE EXCEPTION 'not signed in' USING ERRCODE = '42501';
  END IF;
  PERFORM backline.require_active();
  IF p_user_id IS NOT NULL AND p_user_id <> uid AND NOT public.is_admin() THEN
    RAISE EXCEPTION 'permission denied: can only act for yourself' USING ERRCODE = '42501';
  END IF;
  RETURN coalesce(p_user_id, uid);
END $$;

REVOKE ALL ON FUNCTION backline.require_self(uuid) FROM PUBLIC, anon, authenticated, service_role;
