-- The caller's user id while their account is active (backline.caller_is_active),
-- else NULL. Policies compare a row's owner with it instead of auth.uid(), so
-- a suspended account owns no row: it reads none of its wallet, ledger,
-- notifications, cash-outs, KYC, invites, playlists or sessions, and writes
-- nothing, uploads included.
CREATE OR REPLACE FUNCTION backline.active_uid() RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT auth.uid() WHERE backline.caller_is_active()
$$;

REVOKE ALL ON FUNCTION backline.active_uid() FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION backline.active_uid() TO anon, authenticated, service_role;
