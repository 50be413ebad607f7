package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// customProvider is a custom OAuth 2.0 or OIDC provider stored by the
// admin API (auth.custom_oauth_providers), in the JSON shape the
// reference's admin API answers with; the client secret never leaves.
type customProvider struct {
	ID                    string         `json:"id"`
	ProviderType          string         `json:"provider_type"`
	Identifier            string         `json:"identifier"`
	Name                  string         `json:"name"`
	ClientID              string         `json:"client_id"`
	ClientSecret          string         `json:"-"`
	AcceptableClientIDs   []string       `json:"acceptable_client_ids"`
	Scopes                []string       `json:"scopes"`
	PKCEEnabled           bool           `json:"pkce_enabled"`
	AttributeMapping      map[string]any `json:"attribute_mapping"`
	CustomClaimsAllowlist []string       `json:"custom_claims_allowlist"`
	AuthorizationParams   map[string]any `json:"authorization_params"`
	Enabled               bool           `json:"enabled"`
	EmailOptional         bool           `json:"email_optional"`

	Issuer            *string        `json:"issuer,omitempty"`
	DiscoveryURL      *string        `json:"discovery_url,omitempty"`
	SkipNonceCheck    bool           `json:"skip_nonce_check"`
	Discovery         *oidcDiscovery `json:"discovery_document,omitempty"`
	DiscoveryCachedAt *time.Time     `json:"-"`

	AuthorizationURL *string `json:"authorization_url,omitempty"`
	TokenURL         *string `json:"token_url,omitempty"`
	UserinfoURL      *string `json:"userinfo_url,omitempty"`
	JwksURI          *string `json:"jwks_uri,omitempty"`

	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// The two kinds of custom providers.
const (
	providerTypeOAuth2 = "oauth2"
	providerTypeOIDC   = "oidc"
)

func (p *customProvider) oidc() bool { return p.ProviderType == providerTypeOIDC }

// discoveryURL is where an OIDC provider's discovery document is: its
// discovery_url, else under its issuer.
func (p *customProvider) discoveryURL() string {
	if p.DiscoveryURL != nil && *p.DiscoveryURL != "" {
		return *p.DiscoveryURL
	}
	if p.Issuer == nil {
		return ""
	}
	return strings.TrimRight(*p.Issuer, "/") + "/.well-known/openid-configuration"
}

// oidcDiscovery is the part of a discovery document the admin API checks
// and keeps (discovery_document).
type oidcDiscovery struct {
	Issuer                 string   `json:"issuer"`
	AuthorizationEndpoint  string   `json:"authorization_endpoint"`
	TokenEndpoint          string   `json:"token_endpoint"`
	UserinfoEndpoint       string   `json:"userinfo_endpoint,omitempty"`
	JwksURI                string   `json:"jwks_uri"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported    []string `json:"grant_types_supported,omitempty"`
	SubjectTypesSupported  []string `json:"subject_types_supported,omitempty"`
}

const customProviderColumns = `id, provider_type, identifier, name, client_id, client_secret, acceptable_client_ids,
	scopes, pkce_enabled, attribute_mapping, custom_claims_allowlist, authorization_params, enabled, email_optional,
	issuer, discovery_url, skip_nonce_check, cached_discovery, discovery_cached_at, authorization_url, token_url,
	userinfo_url, jwks_uri, created_at, updated_at`

func scanCustomProvider(row pgx.Row) (*customProvider, error) {
	p := &customProvider{}
	err := row.Scan(&p.ID, &p.ProviderType, &p.Identifier, &p.Name, &p.ClientID, &p.ClientSecret, &p.AcceptableClientIDs,
		&p.Scopes, &p.PKCEEnabled, &p.AttributeMapping, &p.CustomClaimsAllowlist, &p.AuthorizationParams, &p.Enabled,
		&p.EmailOptional, &p.Issuer, &p.DiscoveryURL, &p.SkipNonceCheck, &p.Discovery, &p.DiscoveryCachedAt,
		&p.AuthorizationURL, &p.TokenURL, &p.UserinfoURL, &p.JwksURI, &p.CreatedAt, &p.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, pg.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read custom provider: %w", err)
	}
	p.CreatedAt, p.UpdatedAt = p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	p.normalize()
	return p, nil
}

// normalize makes absent lists and maps empty: the columns are NOT NULL,
// and the reference's JSON shows them as [] and {}.
func (p *customProvider) normalize() {
	for _, l := range []*[]string{&p.AcceptableClientIDs, &p.Scopes, &p.CustomClaimsAllowlist} {
		if *l == nil {
			*l = []string{}
		}
	}
	for _, m := range []*map[string]any{&p.AttributeMapping, &p.AuthorizationParams} {
		if *m == nil {
			*m = map[string]any{}
		}
	}
}

// customProviderByIdentifier loads a provider by its custom:<id> name
// (pg.ErrNotFound when there is none).
func customProviderByIdentifier(ctx context.Context, db pg.DB, identifier string) (*customProvider, error) {
	return scanCustomProvider(db.QueryRow(ctx, `SELECT `+customProviderColumns+`
		FROM auth.custom_oauth_providers WHERE identifier = $1`, identifier))
}

// listCustomProviders lists providers newest first, of one type when
// providerType is set.
func listCustomProviders(ctx context.Context, db pg.DB, providerType string) ([]*customProvider, error) {
	rows, err := db.Query(ctx, `SELECT `+customProviderColumns+` FROM auth.custom_oauth_providers
		WHERE $1 = '' OR provider_type = $1 ORDER BY created_at DESC, id`, providerType)
	if err != nil {
		return nil, fmt.Errorf("list custom providers: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*customProvider, error) { return scanCustomProvider(r) })
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []*customProvider{}
	}
	return out, nil
}

// saveCustomProvider inserts p (insert) or writes every column of it back.
func saveCustomProvider(ctx context.Context, db pg.DB, p *customProvider, insert bool) error {
	p.normalize()
	q := `UPDATE auth.custom_oauth_providers SET provider_type = $2, identifier = $3, name = $4, client_id = $5,
		client_secret = $6, acceptable_client_ids = $7, scopes = $8, pkce_enabled = $9, attribute_mapping = $10,
		custom_claims_allowlist = $11, authorization_params = $12, enabled = $13, email_optional = $14, issuer = $15,
		discovery_url = $16, skip_nonce_check = $17, cached_discovery = $18, discovery_cached_at = $19,
		authorization_url = $20, token_url = $21, userinfo_url = $22, jwks_uri = $23, created_at = $24, updated_at = $25
		WHERE id = $1`
	if insert {
		q = `INSERT INTO auth.custom_oauth_providers (` + customProviderColumns + `)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)`
	}
	_, err := db.Exec(ctx, q, p.ID, p.ProviderType, p.Identifier, p.Name, p.ClientID, p.ClientSecret, p.AcceptableClientIDs,
		p.Scopes, p.PKCEEnabled, p.AttributeMapping, p.CustomClaimsAllowlist, p.AuthorizationParams, p.Enabled,
		p.EmailOptional, p.Issuer, p.DiscoveryURL, p.SkipNonceCheck, p.Discovery, p.DiscoveryCachedAt,
		p.AuthorizationURL, p.TokenURL, p.UserinfoURL, p.JwksURI, p.CreatedAt, p.UpdatedAt)
	return err
}

// checkProviderURL keeps the admin API from pointing Basalt at itself or
// its network (the reference's SSRF rules): https only, and a host that
// is not, and does not resolve to, a loopback, private, link-local,
// multicast or unspecified address. Errors are the reference's.
func (s *Service) checkProviderURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return &apiError{Status: http.StatusBadRequest, Code: "validation_failed", Message: "Invalid URL format", Cause: err}
	}
	if u.Scheme != "https" {
		return badRequest("validation_failed", "URL must use HTTPS")
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return badRequest("validation_failed", "URL must have a valid hostname")
	}
	if s.localProviders {
		return nil
	}
	switch host {
	case "localhost", "127.0.0.1", "::1", "0.0.0.0", "::":
		return badRequest("validation_failed", "URL cannot point to localhost or loopback addresses")
	}
	if strings.HasSuffix(host, ".localhost") {
		return badRequest("validation_failed", "URL cannot point to localhost or loopback addresses")
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return &apiError{Status: http.StatusBadRequest, Code: "validation_failed", Message: "Unable to resolve hostname", Cause: err}
	}
	for _, ip := range ips {
		var why string
		switch {
		case ip.IsLoopback():
			why = "loopback"
		case ip.IsPrivate():
			why = "private network"
		case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
			why = "link-local"
		case ip.IsMulticast():
			why = "multicast"
		case ip.IsUnspecified():
			why = "unspecified"
		}
		if why != "" {
			return badRequest("validation_failed", "URL cannot resolve to %s addresses", why)
		}
	}
	return nil
}

// fetchDiscovery reads and checks an OIDC provider's discovery document
// when the admin API stores the provider, so that a wrong issuer fails
// there rather than at a user's sign-in. Redirects are checked as the
// URL itself is.
func (s *Service) fetchDiscovery(ctx context.Context, discoveryURL, issuer string) (*oidcDiscovery, error) {
	fail := func(err error) error {
		return badRequest("validation_failed", "OIDC discovery from %q failed: %v", discoveryURL, err)
	}
	if err := s.checkProviderURL(discoveryURL); err != nil {
		var ae *apiError
		errors.As(err, &ae)
		return nil, fail(fmt.Errorf("oidc: discovery request to %s failed: %s", discoveryURL, ae.Message))
	}
	client := *s.httpClient
	client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return s.checkProviderURL(r.URL.String())
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, discoveryURL, nil)
	if err != nil {
		return nil, fail(err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return nil, fail(fmt.Errorf("oidc: discovery request to %s failed: %w", discoveryURL, err))
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fail(fmt.Errorf("oidc: discovery request to %s returned %s", discoveryURL, res.Status))
	}
	var d oidcDiscovery
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&d); err != nil {
		return nil, fail(fmt.Errorf("oidc: failed to decode discovery document from %s: %w", discoveryURL, err))
	}
	if d.Issuer != issuer {
		return nil, fail(fmt.Errorf("oidc: issuer mismatch, expected %q got %q", issuer, d.Issuer))
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"issuer", d.Issuer}, {"authorization_endpoint", d.AuthorizationEndpoint},
		{"token_endpoint", d.TokenEndpoint}, {"jwks_uri", d.JwksURI}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, badRequest("validation_failed", "OIDC discovery document is missing required fields: %s", strings.Join(missing, ", "))
	}
	return &d, nil
}
