-- Columns the reference server's newer migrations added to the auth schema,
-- so SQL and tools written against a current Supabase project find them,
-- and indexes for the lookups Basalt's auth service makes.
ALTER TABLE auth.sessions ADD COLUMN IF NOT EXISTS oauth_client_id uuid;
ALTER TABLE auth.sessions ADD COLUMN IF NOT EXISTS scopes text;
ALTER TABLE auth.sessions ADD COLUMN IF NOT EXISTS refresh_token_hmac_key text;
ALTER TABLE auth.sessions ADD COLUMN IF NOT EXISTS refresh_token_counter bigint;

ALTER TABLE auth.flow_state ADD COLUMN IF NOT EXISTS invite_token text;
ALTER TABLE auth.flow_state ADD COLUMN IF NOT EXISTS oauth_client_state_id uuid;
ALTER TABLE auth.flow_state ADD COLUMN IF NOT EXISTS linking_target_id uuid;
ALTER TABLE auth.flow_state ADD COLUMN IF NOT EXISTS email_optional boolean NOT NULL DEFAULT false;

-- Challenges are looked up by factor, and cascade-deleted with it.
CREATE INDEX IF NOT EXISTS mfa_challenges_factor_id_idx ON auth.mfa_challenges (factor_id);
-- PKCE email links find the newest flow of a user for one method.
CREATE INDEX IF NOT EXISTS flow_state_created_at_idx ON auth.flow_state (created_at DESC);
-- Admin listing orders by creation time.
CREATE INDEX IF NOT EXISTS users_created_at_idx ON auth.users (created_at DESC);
-- Phone-change and email-change verification look users up by the pending value.
CREATE INDEX IF NOT EXISTS users_email_change_idx ON auth.users (email_change) WHERE email_change <> '';
CREATE INDEX IF NOT EXISTS users_phone_change_idx ON auth.users (phone_change) WHERE phone_change <> '';

ALTER TABLE auth.mfa_challenges ENABLE ROW LEVEL SECURITY;
GRANT ALL ON ALL TABLES IN SCHEMA auth TO service_role;
