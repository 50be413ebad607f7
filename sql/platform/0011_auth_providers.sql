-- Sign-in with external OAuth/OIDC providers (auth/README.md, "External
-- providers").
--
-- Every provider flow keeps its context in a flow_state row whose id is the
-- OAuth state, as the reference server now does; implicit flows have no
-- PKCE challenge and no auth code, so those columns become nullable, as in
-- the reference's migration of the same change.
ALTER TABLE auth.flow_state ALTER COLUMN code_challenge DROP NOT NULL;
ALTER TABLE auth.flow_state ALTER COLUMN code_challenge_method DROP NOT NULL;
ALTER TABLE auth.flow_state ALTER COLUMN auth_code DROP NOT NULL;
-- Basalt's own column: the OIDC nonce sent to the provider with this flow,
-- checked against the ID token the callback receives (the reference sends
-- none of its own).
ALTER TABLE auth.flow_state ADD COLUMN IF NOT EXISTS provider_nonce text;

-- The code verifier of providers that want PKCE from us (the reference's
-- table, linked from flow_state.oauth_client_state_id).
CREATE TABLE IF NOT EXISTS auth.oauth_client_states (
  id uuid PRIMARY KEY,
  provider_type text NOT NULL,
  code_verifier text,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_oauth_client_states_created_at ON auth.oauth_client_states (created_at);

-- Basalt's own table: ID tokens already exchanged by the id_token grant,
-- kept until they expire so that one token signs in once (the reference
-- accepts a token again until its exp). token_hash is the hex SHA-256 of
-- the token.
CREATE TABLE IF NOT EXISTS auth.id_token_uses (
  token_hash text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS id_token_uses_expires_at_idx ON auth.id_token_uses (expires_at);

ALTER TABLE auth.oauth_client_states ENABLE ROW LEVEL SECURITY;
ALTER TABLE auth.id_token_uses ENABLE ROW LEVEL SECURITY;
GRANT ALL ON auth.oauth_client_states, auth.id_token_uses TO service_role;
