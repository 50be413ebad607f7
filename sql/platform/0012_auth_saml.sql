-- SAML 2.0 single sign-on (auth/README.md, "SAML SSO"): the reference
-- server's tables, with its columns, so tooling written for Supabase's SSO
-- admin API finds them.
CREATE TABLE IF NOT EXISTS auth.sso_providers (
  id uuid PRIMARY KEY,
  resource_id text,
  created_at timestamptz,
  updated_at timestamptz,
  disabled boolean,
  CONSTRAINT "resource_id not empty" CHECK (resource_id = NULL OR char_length(resource_id) > 0)
);
CREATE UNIQUE INDEX IF NOT EXISTS sso_providers_resource_id_idx ON auth.sso_providers (lower(resource_id));
CREATE INDEX IF NOT EXISTS sso_providers_resource_id_pattern_idx ON auth.sso_providers (resource_id text_pattern_ops);

CREATE TABLE IF NOT EXISTS auth.sso_domains (
  id uuid PRIMARY KEY,
  sso_provider_id uuid NOT NULL REFERENCES auth.sso_providers (id) ON DELETE CASCADE,
  domain text NOT NULL,
  created_at timestamptz,
  updated_at timestamptz,
  CONSTRAINT "domain not empty" CHECK (char_length(domain) > 0)
);
CREATE INDEX IF NOT EXISTS sso_domains_sso_provider_id_idx ON auth.sso_domains (sso_provider_id);
CREATE UNIQUE INDEX IF NOT EXISTS sso_domains_domain_idx ON auth.sso_domains (lower(domain));

CREATE TABLE IF NOT EXISTS auth.saml_providers (
  id uuid PRIMARY KEY,
  sso_provider_id uuid NOT NULL REFERENCES auth.sso_providers (id) ON DELETE CASCADE,
  entity_id text NOT NULL UNIQUE,
  metadata_xml text NOT NULL,
  metadata_url text,
  attribute_mapping jsonb,
  created_at timestamptz,
  updated_at timestamptz,
  name_id_format text,
  CONSTRAINT "metadata_xml not empty" CHECK (char_length(metadata_xml) > 0),
  CONSTRAINT "metadata_url not empty" CHECK (metadata_url = NULL OR char_length(metadata_url) > 0),
  CONSTRAINT "entity_id not empty" CHECK (char_length(entity_id) > 0)
);
CREATE INDEX IF NOT EXISTS saml_providers_sso_provider_id_idx ON auth.saml_providers (sso_provider_id);

-- One row per sign-in Basalt starts (POST /sso): its id is the SAML
-- RelayState, request_id the AuthnRequest the response must answer.
CREATE TABLE IF NOT EXISTS auth.saml_relay_states (
  id uuid PRIMARY KEY,
  sso_provider_id uuid NOT NULL REFERENCES auth.sso_providers (id) ON DELETE CASCADE,
  request_id text NOT NULL,
  for_email text,
  redirect_to text,
  created_at timestamptz,
  updated_at timestamptz,
  flow_state_id uuid REFERENCES auth.flow_state (id) ON DELETE CASCADE,
  CONSTRAINT "request_id not empty" CHECK (char_length(request_id) > 0)
);
CREATE INDEX IF NOT EXISTS saml_relay_states_sso_provider_id_idx ON auth.saml_relay_states (sso_provider_id);
CREATE INDEX IF NOT EXISTS saml_relay_states_for_email_idx ON auth.saml_relay_states (for_email);
CREATE INDEX IF NOT EXISTS saml_relay_states_created_at_idx ON auth.saml_relay_states (created_at DESC);

CREATE TABLE IF NOT EXISTS auth.sso_sessions (
  id uuid PRIMARY KEY,
  session_id uuid NOT NULL REFERENCES auth.sessions (id) ON DELETE CASCADE,
  sso_provider_id uuid REFERENCES auth.sso_providers (id) ON DELETE CASCADE,
  not_before timestamptz,
  not_after timestamptz,
  idp_initiated boolean DEFAULT false,
  created_at timestamptz,
  updated_at timestamptz
);
CREATE INDEX IF NOT EXISTS sso_sessions_session_id_idx ON auth.sso_sessions (session_id);
CREATE INDEX IF NOT EXISTS sso_sessions_sso_provider_id_idx ON auth.sso_sessions (sso_provider_id);

ALTER TABLE auth.sso_providers ENABLE ROW LEVEL SECURITY;
ALTER TABLE auth.sso_domains ENABLE ROW LEVEL SECURITY;
ALTER TABLE auth.saml_providers ENABLE ROW LEVEL SECURITY;
ALTER TABLE auth.saml_relay_states ENABLE ROW LEVEL SECURITY;
ALTER TABLE auth.sso_sessions ENABLE ROW LEVEL SECURITY;
GRANT ALL ON auth.sso_providers, auth.sso_domains, auth.saml_providers, auth.saml_relay_states, auth.sso_sessions TO service_role;
