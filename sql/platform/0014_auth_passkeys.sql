-- Passkeys (auth/README.md, "Passkeys and WebAuthn"): the reference server's
-- tables, with its columns. WebAuthn MFA factors keep their credential in
-- auth.mfa_factors.web_authn_credential and their ceremony state in
-- auth.mfa_challenges.web_authn_session_data (0002_auth.sql).
CREATE TABLE IF NOT EXISTS auth.webauthn_credentials (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  credential_id bytea NOT NULL,
  public_key bytea NOT NULL,
  attestation_type text NOT NULL DEFAULT '',
  aaguid uuid,
  sign_count bigint NOT NULL DEFAULT 0,
  transports jsonb NOT NULL DEFAULT '[]'::jsonb,
  backup_eligible boolean NOT NULL DEFAULT false,
  backed_up boolean NOT NULL DEFAULT false,
  friendly_name text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
-- A credential id names one key pair, so it may belong to one account only.
CREATE UNIQUE INDEX IF NOT EXISTS webauthn_credentials_credential_id_key ON auth.webauthn_credentials (credential_id);
CREATE INDEX IF NOT EXISTS webauthn_credentials_user_id_idx ON auth.webauthn_credentials (user_id);

-- One row per ceremony begun; verification deletes it, so a challenge
-- answers once. Sign-in challenges have no user: the passkey names it.
CREATE TABLE IF NOT EXISTS auth.webauthn_challenges (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid REFERENCES auth.users (id) ON DELETE CASCADE,
  challenge_type text NOT NULL CHECK (challenge_type IN ('signup', 'registration', 'authentication')),
  session_data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS webauthn_challenges_user_id_idx ON auth.webauthn_challenges (user_id);
CREATE INDEX IF NOT EXISTS webauthn_challenges_expires_at_idx ON auth.webauthn_challenges (expires_at);

ALTER TABLE auth.webauthn_credentials ENABLE ROW LEVEL SECURITY;
ALTER TABLE auth.webauthn_challenges ENABLE ROW LEVEL SECURITY;
GRANT ALL ON auth.webauthn_credentials, auth.webauthn_challenges TO service_role;
