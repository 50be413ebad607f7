-- Basalt Studio, the operator's dashboard: its operators, their sessions
-- (kept here so that every node accepts a session another node opened), the
-- audit log of every write made through it, and the SQL editor's saved
-- snippets and history. Basalt's own tables: no API role may read them.

CREATE TABLE IF NOT EXISTS basalt.studio_operators (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Compared lower-cased: one operator per address, whatever its case.
  email text NOT NULL CHECK (email = lower(email) AND email <> ''),
  -- bcrypt; NULL for the dev operator, who never signs in with a password.
  password_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_sign_in_at timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS studio_operators_email_key ON basalt.studio_operators (email);

CREATE TABLE IF NOT EXISTS basalt.studio_sessions (
  -- SHA-256 of the cookie's token: a leaked table opens no session.
  token_hash bytea PRIMARY KEY,
  operator_id uuid NOT NULL REFERENCES basalt.studio_operators (id) ON DELETE CASCADE,
  -- The CSRF token the app sends back in a header with every request.
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  ip text NOT NULL DEFAULT '',
  user_agent text NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS studio_sessions_operator_idx ON basalt.studio_sessions (operator_id);
CREATE INDEX IF NOT EXISTS studio_sessions_expires_idx ON basalt.studio_sessions (expires_at);

-- Append-only: who did what to which object, and when. The actor is kept as
-- text as well, so a row outlives the operator it names.
CREATE TABLE IF NOT EXISTS basalt.studio_audit (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  operator_id uuid REFERENCES basalt.studio_operators (id) ON DELETE SET NULL,
  actor text NOT NULL,
  action text NOT NULL,
  target text NOT NULL DEFAULT '',
  detail jsonb NOT NULL DEFAULT '{}',
  ip text NOT NULL DEFAULT '',
  request_id text NOT NULL DEFAULT '',
  -- The HTTP status the write ended with; NULL while it runs (or if the
  -- node stopped before it ended). The row is written before the write.
  status integer
);
CREATE INDEX IF NOT EXISTS studio_audit_at_idx ON basalt.studio_audit (at DESC);

CREATE TABLE IF NOT EXISTS basalt.studio_snippets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  operator_id uuid NOT NULL REFERENCES basalt.studio_operators (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  sql text NOT NULL CHECK (octet_length(sql) <= 1048576),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS studio_snippets_operator_idx ON basalt.studio_snippets (operator_id, updated_at DESC);

CREATE TABLE IF NOT EXISTS basalt.studio_sql_history (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  operator_id uuid REFERENCES basalt.studio_operators (id) ON DELETE CASCADE,
  sql text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  duration_ms double precision NOT NULL DEFAULT 0,
  row_count bigint NOT NULL DEFAULT 0,
  error text
);
CREATE INDEX IF NOT EXISTS studio_sql_history_operator_idx ON basalt.studio_sql_history (operator_id, id DESC);

REVOKE ALL ON basalt.studio_operators, basalt.studio_sessions, basalt.studio_audit,
  basalt.studio_snippets, basalt.studio_sql_history FROM PUBLIC;
