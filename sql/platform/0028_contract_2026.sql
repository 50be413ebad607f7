-- The Supabase contract as of late 2026.
--
-- Since 2026-10-30 Supabase grants the API roles nothing on new tables and
-- functions in public (changelog 45329): a table is reachable through the
-- Data API once a migration GRANTs it, and RLS decides as before. Objects
-- that exist keep their grants. 0001 set the earlier default; this takes
-- it back. BASALT_PUBLIC_DEFAULT_GRANTS=true restores it after every
-- migration run (platform.DefaultPrivileges), for databases whose
-- migrations rely on it.
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON ROUTINES FROM anon, authenticated, service_role;

-- The new API keys (sb_publishable_…, sb_secret_…), several of each kind
-- at once, each created, rotated and revoked on its own (internal/apikeys).
-- Only a key's SHA-256 is kept. Every node follows NOTIFY basalt_api_keys,
-- so a revoked key is refused everywhere.
CREATE TABLE IF NOT EXISTS basalt.api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (name ~ '^[a-z0-9_]{1,64}$'),
  type text NOT NULL CHECK (type IN ('publishable', 'secret')),
  prefix text NOT NULL,
  sha256 bytea NOT NULL UNIQUE CHECK (length(sha256) = 32),
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
-- Names tell valid keys of a kind apart; a revoked key's name may be used
-- again.
CREATE UNIQUE INDEX IF NOT EXISTS api_keys_valid_name_idx ON basalt.api_keys (type, name) WHERE revoked_at IS NULL;
REVOKE ALL ON basalt.api_keys FROM PUBLIC;

CREATE OR REPLACE FUNCTION basalt.api_keys_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('basalt_api_keys', '');
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS api_keys_changed ON basalt.api_keys;
CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON basalt.api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION basalt.api_keys_changed();
