package auth

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// customProviderParams is the body of POST and PUT
// /admin/custom-providers: the reference's fields. On PUT, absent fields
// keep their values.
type customProviderParams struct {
	ProviderType          string         `json:"provider_type"`
	Identifier            string         `json:"identifier"`
	Name                  string         `json:"name"`
	ClientID              string         `json:"client_id"`
	ClientSecret          string         `json:"client_secret"`
	AcceptableClientIDs   []string       `json:"acceptable_client_ids"`
	Scopes                []string       `json:"scopes"`
	PKCEEnabled           *bool          `json:"pkce_enabled"`
	AttributeMapping      map[string]any `json:"attribute_mapping"`
	CustomClaimsAllowlist []string       `json:"custom_claims_allowlist"`
	AuthorizationParams   map[string]any `json:"authorization_params"`
	Enabled               *bool          `json:"enabled"`
	EmailOptional         *bool          `json:"email_optional"`

	Issuer         string  `json:"issuer"`
	DiscoveryURL   *string `json:"discovery_url"`
	SkipNonceCheck *bool   `json:"skip_nonce_check"`

	AuthorizationURL string  `json:"authorization_url"`
	TokenURL         string  `json:"token_url"`
	UserinfoURL      string  `json:"userinfo_url"`
	JwksURI          *string `json:"jwks_uri"`
}

// requireCustomOAuth answers as the reference does while the admin API's
// custom providers are off.
func (s *Service) requireCustomOAuth(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.cfg.CustomOAuth.Enabled {
			return notFound("feature_disabled", "Custom OAuth providers are disabled")
		}
		return h(w, r)
	}
}

// customIdentifier checks a custom:<id> name from the path or a body.
func customIdentifier(id string) error {
	if id == "" {
		return badRequest("validation_failed", "identifier is required")
	}
	if !strings.HasPrefix(id, customPrefix) {
		return badRequest("validation_failed", "identifier must start with 'custom:' prefix, e.g. 'custom:%s'", id)
	}
	return nil
}

var errCustomProviderNotFound = notFound("custom_provider_not_found", "Custom OAuth provider not found")

// pathCustomProvider loads the provider the path names.
func (s *Service) pathCustomProvider(r *http.Request) (*customProvider, error) {
	id := r.PathValue("identifier")
	if err := customIdentifier(id); err != nil {
		return nil, err
	}
	p, err := customProviderByIdentifier(r.Context(), s.db, id)
	if errors.Is(err, pg.ErrNotFound) {
		return nil, errCustomProviderNotFound
	}
	return p, err
}

// adminCustomProvidersList handles GET /admin/custom-providers[?type=].
func (s *Service) adminCustomProvidersList(w http.ResponseWriter, r *http.Request) error {
	typ := r.URL.Query().Get("type")
	if typ != "" && typ != providerTypeOAuth2 && typ != providerTypeOIDC {
		return badRequest("validation_failed", "type must be either 'oauth2' or 'oidc'")
	}
	list, err := listCustomProviders(r.Context(), s.db, typ)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"providers": list})
	return nil
}

// adminCustomProvidersGet handles GET /admin/custom-providers/{identifier}.
func (s *Service) adminCustomProvidersGet(w http.ResponseWriter, r *http.Request) error {
	p, err := s.pathCustomProvider(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

// adminCustomProvidersCreate handles POST /admin/custom-providers: the
// reference's checks in its order, the discovery document of an OIDC
// provider fetched and checked, then 201 with the provider.
func (s *Service) adminCustomProvidersCreate(w http.ResponseWriter, r *http.Request) error {
	var p customProviderParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.ProviderType != providerTypeOAuth2 && p.ProviderType != providerTypeOIDC {
		return badRequest("validation_failed", "provider_type must be either 'oauth2' or 'oidc'")
	}
	if err := p.validateRequired(); err != nil {
		return err
	}
	if err := p.validateShaping(); err != nil {
		return err
	}
	ctx := r.Context()
	if quota := s.cfg.CustomOAuth.MaxProviders; quota > 0 {
		var n int
		if err := s.db.QueryRow(ctx, `SELECT count(*) FROM auth.custom_oauth_providers`).Scan(&n); err != nil {
			return err
		}
		if n >= quota {
			return badRequest("over_custom_provider_quota", "Maximum number of custom OAuth/OIDC providers reached")
		}
	}
	for _, u := range p.urls() {
		if err := s.checkProviderURL(u); err != nil {
			return err
		}
	}
	// A provider the environment defines has the name already.
	_, err := customProviderByIdentifier(ctx, s.db, p.Identifier)
	if _, env := s.cfg.External[p.Identifier]; err == nil || env {
		return badRequest("conflict", "A custom OAuth provider with this identifier already exists")
	}
	if !errors.Is(err, pg.ErrNotFound) {
		return err
	}
	cp := p.build()
	cp.ID = newUUID()
	cp.CreatedAt = s.now().UTC()
	cp.UpdatedAt = cp.CreatedAt
	if cp.oidc() {
		if cp.Discovery, err = s.fetchDiscovery(ctx, cp.discoveryURL(), p.Issuer); err != nil {
			return err
		}
		cp.DiscoveryCachedAt = &cp.CreatedAt
	}
	if err := saveCustomProvider(ctx, s.db, cp, true); err != nil {
		if pg.Is(err, "23505") {
			return badRequest("conflict", "A custom OAuth provider with this identifier already exists")
		}
		return &apiError{Status: http.StatusInternalServerError, Code: "unexpected_failure",
			Message: "Error creating custom OAuth provider", Cause: err}
	}
	writeJSON(w, http.StatusCreated, cp)
	return nil
}

// adminCustomProvidersUpdate handles PUT /admin/custom-providers/{identifier}:
// the fields given replace the stored ones (type and identifier stay); a
// new issuer or discovery URL is discovered again.
func (s *Service) adminCustomProvidersUpdate(w http.ResponseWriter, r *http.Request) error {
	if err := customIdentifier(r.PathValue("identifier")); err != nil {
		return err
	}
	var p customProviderParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if err := p.validateShaping(); err != nil {
		return err
	}
	cp, err := s.pathCustomProvider(r)
	if err != nil {
		return err
	}
	oldIssuer := deref(cp.Issuer)
	if err := s.applyUpdate(cp, &p); err != nil {
		return err
	}
	ctx := r.Context()
	now := s.now().UTC()
	if cp.oidc() && (p.Issuer != "" || p.DiscoveryURL != nil) {
		if cp.Discovery, err = s.fetchDiscovery(ctx, cp.discoveryURL(), *cp.Issuer); err != nil {
			return err
		}
		cp.DiscoveryCachedAt = &now
	}
	if p.ClientSecret != "" {
		cp.ClientSecret = p.ClientSecret
	}
	cp.UpdatedAt = now
	if err := saveCustomProvider(ctx, s.db, cp, false); err != nil {
		return &apiError{Status: http.StatusInternalServerError, Code: "unexpected_failure",
			Message: "Error updating custom OAuth provider", Cause: err}
	}
	if cp.oidc() && (p.Issuer != "" || p.DiscoveryURL != nil) {
		// Sign-ins discover the new settings, as the reference's cache
		// is invalidated (on this node; others within the cache TTL).
		s.oidc.forget(oldIssuer)
		s.oidc.forget(*cp.Issuer)
	}
	writeJSON(w, http.StatusOK, cp)
	return nil
}

// adminCustomProvidersDelete handles DELETE /admin/custom-providers/{identifier}:
// 204. Identities of the provider stay, as in the reference.
func (s *Service) adminCustomProvidersDelete(w http.ResponseWriter, r *http.Request) error {
	if err := customIdentifier(r.PathValue("identifier")); err != nil {
		return err
	}
	var issuer *string
	err := s.db.QueryRow(r.Context(), `DELETE FROM auth.custom_oauth_providers WHERE identifier = $1 RETURNING issuer`,
		r.PathValue("identifier")).Scan(&issuer)
	if errors.Is(err, pgx.ErrNoRows) {
		return errCustomProviderNotFound
	}
	if err != nil {
		return err
	}
	if issuer != nil {
		s.oidc.forget(*issuer)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// validateRequired checks what a new provider must have.
func (p *customProviderParams) validateRequired() error {
	if err := customIdentifier(p.Identifier); err != nil {
		return err
	}
	for _, f := range []struct{ name, v string }{{"name", p.Name}, {"client_id", p.ClientID}, {"client_secret", p.ClientSecret}} {
		if f.v == "" {
			return badRequest("validation_failed", "%s is required", f.name)
		}
	}
	if p.ProviderType == providerTypeOIDC {
		if p.Issuer == "" {
			return badRequest("validation_failed", "issuer is required for OIDC providers")
		}
		return nil
	}
	for _, f := range []struct{ name, v string }{{"authorization_url", p.AuthorizationURL}, {"token_url", p.TokenURL},
		{"userinfo_url", p.UserinfoURL}} {
		if f.v == "" {
			return badRequest("validation_failed", "%s is required for OAuth2 providers", f.name)
		}
	}
	return nil
}

// reservedAuthorizationParams are parameters a provider's stored
// authorization_params may not set: Basalt controls them (nonce included,
// so that it cannot be pinned to one value).
var reservedAuthorizationParams = []string{"client_id", "client_secret", "redirect_uri", "response_type", "state",
	"code_challenge", "code_challenge_method", "code_verifier", "nonce"}

// protectedClaims are user fields no attribute mapping may write.
var protectedClaims = []string{"id", "aud", "role", "app_metadata", "created_at", "updated_at", "confirmed_at",
	"email_confirmed_at", "phone_confirmed_at", "email_verified", "phone_verified", "banned_until", "is_super_admin"}

// validateShaping checks authorization_params, attribute_mapping and
// custom_claims_allowlist, as the reference does.
func (p *customProviderParams) validateShaping() error {
	for k, v := range p.AuthorizationParams {
		if slices.Contains(reservedAuthorizationParams, k) {
			return badRequest("validation_failed", "Cannot override reserved OAuth parameter: %s", k)
		}
		if _, ok := v.(string); !ok {
			return badRequest("validation_failed", "Authorization parameter %q must be a string", k)
		}
	}
	for k := range p.AttributeMapping {
		if slices.Contains(protectedClaims, k) {
			return badRequest("validation_failed", "Cannot map to protected system field: %s", k)
		}
	}
	for _, k := range p.CustomClaimsAllowlist {
		if strings.TrimSpace(k) == "" {
			return badRequest("validation_failed", "custom_claims_allowlist entries must be non-empty strings")
		}
	}
	return nil
}

// urls are the provider URLs of a new provider, for checkProviderURL.
func (p *customProviderParams) urls() []string {
	var out []string
	if p.ProviderType == providerTypeOIDC {
		out = append(out, p.Issuer)
		if p.DiscoveryURL != nil && *p.DiscoveryURL != "" {
			out = append(out, *p.DiscoveryURL)
		}
		return out
	}
	out = append(out, p.AuthorizationURL, p.TokenURL, p.UserinfoURL)
	if p.JwksURI != nil && *p.JwksURI != "" {
		out = append(out, *p.JwksURI)
	}
	return out
}

// build makes a new provider from checked params, with the reference's
// defaults (PKCE and enabled on); OIDC providers always ask for openid.
func (p *customProviderParams) build() *customProvider {
	cp := &customProvider{ProviderType: p.ProviderType, Identifier: p.Identifier, Name: p.Name, ClientID: p.ClientID,
		ClientSecret: p.ClientSecret, AcceptableClientIDs: p.AcceptableClientIDs, Scopes: p.Scopes,
		PKCEEnabled: orBool(p.PKCEEnabled, true), AttributeMapping: p.AttributeMapping,
		CustomClaimsAllowlist: p.CustomClaimsAllowlist, AuthorizationParams: p.AuthorizationParams,
		Enabled: orBool(p.Enabled, true), EmailOptional: orBool(p.EmailOptional, false)}
	if p.ProviderType == providerTypeOIDC {
		issuer := p.Issuer
		cp.Issuer, cp.DiscoveryURL, cp.SkipNonceCheck = &issuer, p.DiscoveryURL, orBool(p.SkipNonceCheck, false)
		cp.Scopes = withOpenID(cp.Scopes)
		return cp
	}
	au, tu, uu := p.AuthorizationURL, p.TokenURL, p.UserinfoURL
	cp.AuthorizationURL, cp.TokenURL, cp.UserinfoURL, cp.JwksURI = &au, &tu, &uu, p.JwksURI
	return cp
}

// applyUpdate copies the given fields of p onto cp; new provider URLs
// pass checkProviderURL first.
func (s *Service) applyUpdate(cp *customProvider, p *customProviderParams) error {
	if p.Name != "" {
		cp.Name = p.Name
	}
	if p.ClientID != "" {
		cp.ClientID = p.ClientID
	}
	if p.AcceptableClientIDs != nil {
		cp.AcceptableClientIDs = p.AcceptableClientIDs
	}
	if p.Scopes != nil {
		cp.Scopes = p.Scopes
		if cp.oidc() {
			cp.Scopes = withOpenID(cp.Scopes)
		}
	}
	if p.AttributeMapping != nil {
		cp.AttributeMapping = p.AttributeMapping
	}
	if p.CustomClaimsAllowlist != nil {
		cp.CustomClaimsAllowlist = p.CustomClaimsAllowlist
	}
	if p.AuthorizationParams != nil {
		cp.AuthorizationParams = p.AuthorizationParams
	}
	cp.PKCEEnabled = orBool(p.PKCEEnabled, cp.PKCEEnabled)
	cp.Enabled = orBool(p.Enabled, cp.Enabled)
	cp.EmailOptional = orBool(p.EmailOptional, cp.EmailOptional)
	set := func(dst **string, v string) error {
		if v == "" {
			return nil
		}
		if err := s.checkProviderURL(v); err != nil {
			return err
		}
		*dst = &v
		return nil
	}
	type urlField struct {
		dst **string
		v   string
	}
	fields := []urlField{{&cp.AuthorizationURL, p.AuthorizationURL}, {&cp.TokenURL, p.TokenURL},
		{&cp.UserinfoURL, p.UserinfoURL}, {&cp.JwksURI, deref(p.JwksURI)}}
	if cp.oidc() {
		cp.SkipNonceCheck = orBool(p.SkipNonceCheck, cp.SkipNonceCheck)
		fields = []urlField{{&cp.Issuer, p.Issuer}, {&cp.DiscoveryURL, deref(p.DiscoveryURL)}}
	}
	for _, f := range fields {
		if err := set(f.dst, f.v); err != nil {
			return err
		}
	}
	return nil
}

func orBool(v *bool, def bool) bool {
	if v == nil {
		return def
	}
	return *v
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// withOpenID puts openid first in an OIDC provider's scopes when missing.
func withOpenID(scopes []string) []string {
	if slices.Contains(scopes, "openid") {
		return scopes
	}
	return append([]string{"openid"}, scopes...)
}
