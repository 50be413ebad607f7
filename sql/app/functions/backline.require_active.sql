-- Refuses a suspended caller with a business refusal (P0001) whose message is
-- the text to show. Every function that acts for the caller starts with it
-- (through require_user and require_self for most).
CREATE OR REPLACE FUNCTION backline.require_active(p_message text DEFAULT 'Your account is suspended') RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF NOT backline.caller_is_active() THEN
    RAISE EXCEPTION '%', p_message USING ERRCODE = 'P0001';
  END IF;
END $$;

REVOKE ALL ON FUNCTION backline.require_active(text) FROM PUBLIC, anon, authenticated, service_role;
