-- The OAuth 2.1 / OpenID Connect server (auth/README.md, "OAuth 2.1
-- server"): registered clients, authorization requests with their codes,
-- and the consents users gave. The reference server's tables, types and
-- checks, so SQL and tools written for Supabase find them, plus Basalt's
-- own rules below, enforced here rather than only in the service.
DO $$ BEGIN
  CREATE TYPE auth.oauth_registration_type AS ENUM ('dynamic', 'manual');
EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$ BEGIN
  CREATE TYPE auth.oauth_client_type AS ENUM ('public', 'confidential');
EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$ BEGIN
  CREATE TYPE auth.oauth_authorization_status AS ENUM ('pending', 'approved', 'denied', 'expired');
EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$ BEGIN
  CREATE TYPE auth.oauth_response_type AS ENUM ('code');
EXCEPTION WHEN duplicate_object THEN NULL; END $$;

-- A client's id is its public client_id. client_secret_hash is the
-- base64url SHA-256 of the secret (a 256-bit random value, so a fast hash
-- is enough); the secret itself is shown once, never stored.
CREATE TABLE IF NOT EXISTS auth.oauth_clients (
  id uuid NOT NULL,
  client_secret_hash text NULL,
  registration_type auth.oauth_registration_type NOT NULL,
  redirect_uris text NOT NULL,
  grant_types text NOT NULL,
  client_name text NULL,
  client_uri text NULL,
  logo_uri text NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz NULL,
  client_type auth.oauth_client_type NOT NULL DEFAULT 'confidential',
  token_endpoint_auth_method text NOT NULL
    CHECK (token_endpoint_auth_method IN ('client_secret_basic', 'client_secret_post', 'none')),
  CONSTRAINT oauth_clients_pkey PRIMARY KEY (id),
  CONSTRAINT oauth_clients_client_name_length CHECK (char_length(client_name) <= 1024),
  CONSTRAINT oauth_clients_client_uri_length CHECK (char_length(client_uri) <= 2048),
  CONSTRAINT oauth_clients_logo_uri_length CHECK (char_length(logo_uri) <= 2048)
);
CREATE INDEX IF NOT EXISTS oauth_clients_deleted_at_idx ON auth.oauth_clients (deleted_at);

-- Basalt's own checks: a confidential client has a secret and
-- authenticates with it, a public one has none and authenticates with
-- nothing but PKCE.
DO $$ BEGIN
  ALTER TABLE auth.oauth_clients ADD CONSTRAINT oauth_clients_secret_matches_type
    CHECK ((client_type = 'confidential') = (client_secret_hash IS NOT NULL));
  ALTER TABLE auth.oauth_clients ADD CONSTRAINT oauth_clients_auth_method_matches_type
    CHECK ((client_type = 'public') = (token_endpoint_auth_method = 'none'));
EXCEPTION WHEN duplicate_object THEN NULL; END $$;

-- One row per authorization request, from /oauth/authorize to the code's
-- exchange. authorization_code holds the hex SHA-256 of the code handed to
-- the client (Basalt's choice: a leaked table yields no usable code).
CREATE TABLE IF NOT EXISTS auth.oauth_authorizations (
  id uuid NOT NULL,
  authorization_id text NOT NULL,
  client_id uuid NOT NULL REFERENCES auth.oauth_clients (id) ON DELETE CASCADE,
  user_id uuid NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  scope text NOT NULL,
  state text NULL,
  resource text NULL,
  code_challenge text NULL,
  code_challenge_method auth.code_challenge_method NULL,
  response_type auth.oauth_response_type NOT NULL DEFAULT 'code',
  status auth.oauth_authorization_status NOT NULL DEFAULT 'pending',
  authorization_code text NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL DEFAULT (now() + interval '3 minutes'),
  approved_at timestamptz NULL,
  nonce text NULL,
  CONSTRAINT oauth_authorizations_pkey PRIMARY KEY (id),
  CONSTRAINT oauth_authorizations_authorization_id_key UNIQUE (authorization_id),
  CONSTRAINT oauth_authorizations_authorization_code_key UNIQUE (authorization_code),
  CONSTRAINT oauth_authorizations_redirect_uri_length CHECK (char_length(redirect_uri) <= 2048),
  CONSTRAINT oauth_authorizations_scope_length CHECK (char_length(scope) <= 4096),
  CONSTRAINT oauth_authorizations_state_length CHECK (char_length(state) <= 4096),
  CONSTRAINT oauth_authorizations_resource_length CHECK (char_length(resource) <= 2048),
  CONSTRAINT oauth_authorizations_code_challenge_length CHECK (char_length(code_challenge) <= 128),
  CONSTRAINT oauth_authorizations_authorization_code_length CHECK (char_length(authorization_code) <= 255),
  CONSTRAINT oauth_authorizations_expires_at_future CHECK (expires_at > created_at),
  CONSTRAINT oauth_authorizations_nonce_length CHECK (char_length(nonce) <= 255)
);
CREATE INDEX IF NOT EXISTS oauth_auth_pending_exp_idx ON auth.oauth_authorizations (expires_at) WHERE status = 'pending';

-- Basalt's own columns and checks: every authorization carries an S256
-- PKCE challenge (plain is refused); an approved one has its user and its
-- code; exchanged_at and session_id record the code's one exchange, so a
-- second attempt is refused and revokes the session the first one started
-- (RFC 6749 §4.1.2).
ALTER TABLE auth.oauth_authorizations ADD COLUMN IF NOT EXISTS exchanged_at timestamptz NULL;
ALTER TABLE auth.oauth_authorizations ADD COLUMN IF NOT EXISTS session_id uuid NULL;
DO $$ BEGIN
  ALTER TABLE auth.oauth_authorizations ADD CONSTRAINT oauth_authorizations_pkce_s256
    CHECK (code_challenge IS NOT NULL AND code_challenge_method = 's256');
  ALTER TABLE auth.oauth_authorizations ADD CONSTRAINT oauth_authorizations_approved_complete
    CHECK (status <> 'approved' OR (user_id IS NOT NULL AND authorization_code IS NOT NULL AND approved_at IS NOT NULL));
  ALTER TABLE auth.oauth_authorizations ADD CONSTRAINT oauth_authorizations_exchanged_once
    CHECK (exchanged_at IS NULL OR status = 'approved');
EXCEPTION WHEN duplicate_object THEN NULL; END $$;

-- What a user allowed a client, kept so a later request for no more
-- scopes skips the consent page, listed under the user's grants and
-- revocable there.
CREATE TABLE IF NOT EXISTS auth.oauth_consents (
  id uuid NOT NULL,
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  client_id uuid NOT NULL REFERENCES auth.oauth_clients (id) ON DELETE CASCADE,
  scopes text NOT NULL,
  granted_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz NULL,
  CONSTRAINT oauth_consents_pkey PRIMARY KEY (id),
  CONSTRAINT oauth_consents_user_client_unique UNIQUE (user_id, client_id),
  CONSTRAINT oauth_consents_scopes_length CHECK (char_length(scopes) <= 2048),
  CONSTRAINT oauth_consents_scopes_not_empty CHECK (char_length(trim(scopes)) > 0),
  CONSTRAINT oauth_consents_revoked_after_granted CHECK (revoked_at IS NULL OR revoked_at >= granted_at)
);
CREATE INDEX IF NOT EXISTS oauth_consents_active_user_client_idx ON auth.oauth_consents (user_id, client_id) WHERE revoked_at IS NULL;
CREATE INDEX IF NOT EXISTS oauth_consents_user_order_idx ON auth.oauth_consents (user_id, granted_at DESC);
CREATE INDEX IF NOT EXISTS oauth_consents_active_client_idx ON auth.oauth_consents (client_id) WHERE revoked_at IS NULL;

-- A session started by a client belongs to it (sessions.oauth_client_id,
-- added by 0003) and goes with it.
DO $$ BEGIN
  ALTER TABLE auth.sessions ADD CONSTRAINT sessions_oauth_client_id_fkey
    FOREIGN KEY (oauth_client_id) REFERENCES auth.oauth_clients (id) ON DELETE CASCADE;
EXCEPTION WHEN duplicate_object THEN NULL; END $$;
CREATE INDEX IF NOT EXISTS sessions_oauth_client_id_idx ON auth.sessions (oauth_client_id);
DO $$ BEGIN
  ALTER TABLE auth.sessions ADD CONSTRAINT sessions_scopes_length CHECK (char_length(scopes) <= 4096);
EXCEPTION WHEN duplicate_object THEN NULL; END $$;

ALTER TABLE auth.oauth_clients ENABLE ROW LEVEL SECURITY;
ALTER TABLE auth.oauth_authorizations ENABLE ROW LEVEL SECURITY;
ALTER TABLE auth.oauth_consents ENABLE ROW LEVEL SECURITY;
GRANT ALL ON auth.oauth_clients, auth.oauth_authorizations, auth.oauth_consents TO service_role;
