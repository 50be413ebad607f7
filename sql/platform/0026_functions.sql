-- TypeScript edge functions deployed without a rebuild: every version of a
-- function kept as its bundle (a gzipped tar of a small Supabase project:
-- functions/<name>/, functions/_shared/, config.toml), the version each
-- function serves, their logs, and the project's secrets, sealed with a key
-- Postgres never sees. Every node reads them; a change is announced with
-- NOTIFY basalt_functions so nodes pick it up within a second.
CREATE TABLE IF NOT EXISTS basalt.function_versions (
  name text NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_-]*$' AND length(name) <= 128),
  version integer NOT NULL CHECK (version > 0),
  bundle bytea NOT NULL,
  sha256 text NOT NULL,
  verify_jwt boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by text,
  PRIMARY KEY (name, version)
);

CREATE TABLE IF NOT EXISTS basalt.functions (
  name text PRIMARY KEY,
  active_version integer NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (name, active_version) REFERENCES basalt.function_versions (name, version)
);

CREATE OR REPLACE FUNCTION basalt.functions_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('basalt_functions', coalesce(NEW.name, OLD.name));
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS functions_changed ON basalt.functions;
CREATE TRIGGER functions_changed AFTER INSERT OR UPDATE OR DELETE ON basalt.functions
  FOR EACH ROW EXECUTE FUNCTION basalt.functions_changed();

-- One row per console line and per invocation (kind 'log' or 'request').
CREATE TABLE IF NOT EXISTS basalt.function_logs (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  function text NOT NULL,
  version text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('log', 'request')),
  request_id text NOT NULL DEFAULT '',
  level text NOT NULL DEFAULT 'info',
  message text NOT NULL DEFAULT '',
  method text,
  path text,
  status integer,
  duration_ms double precision
);
CREATE INDEX IF NOT EXISTS function_logs_function_at_idx ON basalt.function_logs (function, at DESC);
CREATE INDEX IF NOT EXISTS function_logs_request_id_idx ON basalt.function_logs (request_id) WHERE request_id <> '';
CREATE INDEX IF NOT EXISTS function_logs_at_idx ON basalt.function_logs (at);

CREATE TABLE IF NOT EXISTS basalt.secrets (
  name text PRIMARY KEY CHECK (name ~ '^[A-Za-z_][A-Za-z0-9_]*$' AND name NOT LIKE 'SUPABASE\_%'),
  sealed bytea NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE OR REPLACE FUNCTION basalt.secrets_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('basalt_functions', '');
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS secrets_changed ON basalt.secrets;
CREATE TRIGGER secrets_changed AFTER INSERT OR UPDATE OR DELETE ON basalt.secrets
  FOR EACH STATEMENT EXECUTE FUNCTION basalt.secrets_changed();

REVOKE ALL ON basalt.function_versions, basalt.functions, basalt.function_logs, basalt.secrets FROM PUBLIC;
