package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// The clients of the OAuth 2.1 server (auth.oauth_clients): what the
// admin API and dynamic registration create, in the reference's JSON
// shape and with its validation messages.

const (
	clientPublic       = "public"
	clientConfidential = "confidential"

	authMethodNone  = "none"
	authMethodBasic = "client_secret_basic"
	authMethodPost  = "client_secret_post"

	grantAuthorizationCode = "authorization_code"
	grantRefreshToken      = "refresh_token"
)

// allAuthMethods is every token endpoint authentication method, in the
// order the reference lists them in its messages.
var allAuthMethods = []string{authMethodNone, authMethodBasic, authMethodPost}

// oauthClient is a row of auth.oauth_clients.
type oauthClient struct {
	ID               string
	SecretHash       *string
	RegistrationType string
	ClientType       string
	AuthMethod       string
	RedirectURIs     []string
	GrantTypes       []string
	Name, URI, Logo  *string
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// oauthClientJSON is a client as the API shows it; the secret only in the
// answer that created or regenerated it.
type oauthClientJSON struct {
	ClientID                string    `json:"client_id"`
	ClientSecret            string    `json:"client_secret,omitempty"`
	ClientType              string    `json:"client_type"`
	RedirectURIs            []string  `json:"redirect_uris,omitempty"`
	TokenEndpointAuthMethod string    `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes              []string  `json:"grant_types,omitempty"`
	ResponseTypes           []string  `json:"response_types,omitempty"`
	ClientName              string    `json:"client_name,omitempty"`
	ClientURI               string    `json:"client_uri,omitempty"`
	LogoURI                 string    `json:"logo_uri,omitempty"`
	RegistrationType        string    `json:"registration_type,omitempty"`
	CreatedAt               time.Time `json:"created_at"`
	UpdatedAt               time.Time `json:"updated_at"`
}

func (c *oauthClient) json(secret string) oauthClientJSON {
	return oauthClientJSON{ClientID: c.ID, ClientSecret: secret, ClientType: c.ClientType,
		RedirectURIs: c.RedirectURIs, TokenEndpointAuthMethod: c.AuthMethod, GrantTypes: c.GrantTypes,
		ResponseTypes: []string{"code"}, ClientName: deref(c.Name), ClientURI: deref(c.URI), LogoURI: deref(c.Logo),
		RegistrationType: c.RegistrationType, CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC()}
}

func (c *oauthClient) allowsGrant(g string) bool { return slices.Contains(c.GrantTypes, g) }

// oauthClientColumns are read by scanOAuthClient, in its order. Redirect
// URIs and grant types are stored comma-separated, as the reference does.
const oauthClientColumns = `id::text, client_secret_hash, registration_type::text, client_type::text,
	token_endpoint_auth_method, redirect_uris, grant_types, client_name, client_uri, logo_uri, created_at, updated_at`

func scanOAuthClient(row pgx.Row) (*oauthClient, error) {
	var c oauthClient
	var uris, grants string
	err := row.Scan(&c.ID, &c.SecretHash, &c.RegistrationType, &c.ClientType, &c.AuthMethod, &uris, &grants,
		&c.Name, &c.URI, &c.Logo, &c.CreatedAt, &c.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, pg.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read oauth client: %w", err)
	}
	c.RedirectURIs, c.GrantTypes = splitList(uris), splitList(grants)
	return &c, nil
}

func splitList(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// loadOAuthClient reads a live (not deleted) client; pg.ErrNotFound when
// there is none. id must be a UUID.
func loadOAuthClient(ctx context.Context, db pg.DB, id string) (*oauthClient, error) {
	return scanOAuthClient(db.QueryRow(ctx, `SELECT `+oauthClientColumns+`
		FROM auth.oauth_clients WHERE id = $1 AND deleted_at IS NULL`, id))
}

// newClientSecret returns a fresh secret and the hash stored for it: the
// base64url SHA-256, the reference's format, so clients registered by
// either server authenticate on the other.
func newClientSecret() (secret, hash string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	secret = base64.RawURLEncoding.EncodeToString(b)
	return secret, hashClientSecret(secret)
}

func hashClientSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// clientSecretMatches compares in constant time.
func clientSecretMatches(c *oauthClient, secret string) bool {
	if c.SecretHash == nil {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(hashClientSecret(secret)), []byte(*c.SecretHash)) == 1
}

// oauthDecode reads a JSON body with the OAuth server's error for one
// that does not parse (an empty body included).
func oauthDecode(r *http.Request, v any) error {
	body, err := io.ReadAll(r.Body)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) || len(body) > maxBody {
		return newErr(http.StatusRequestEntityTooLarge, "request_entity_too_large", "Request body too large")
	}
	if err != nil || json.Unmarshal(body, v) != nil {
		return badRequest("bad_json", "Invalid JSON body")
	}
	return nil
}

// validateRedirectURI is the reference's check of a redirect URI to
// register (RFC 6749 §3.1.2): absolute with a host, no fragment, no
// scheme that runs code, http only on loopback; and Basalt's own: no
// comma, since the list is stored comma-separated and a comma would split
// one registered URI into two.
func validateRedirectURI(uri string) error {
	if uri == "" {
		return errors.New("redirect URI cannot be empty")
	}
	u, err := url.Parse(uri)
	if err != nil {
		return errors.New("invalid URL format")
	}
	if u.Scheme == "" || u.Host == "" {
		return errors.New("must have scheme and host")
	}
	for _, d := range []string{"javascript", "data", "file", "vbscript", "about", "blob"} {
		if strings.EqualFold(u.Scheme, d) {
			return fmt.Errorf("scheme '%s' is not allowed for security reasons", u.Scheme)
		}
	}
	if u.Scheme == "http" {
		if h := u.Hostname(); h != "localhost" && h != "127.0.0.1" && h != "::1" {
			return errors.New("HTTP scheme only allowed for localhost")
		}
	}
	if u.Fragment != "" {
		return errors.New("fragment not allowed in redirect URI")
	}
	if strings.Contains(uri, ",") {
		return errors.New("comma not allowed in redirect URI")
	}
	return nil
}

func validateRedirectURIs(uris []string, required bool) error {
	switch {
	case required && len(uris) == 0:
		return badRequest("validation_failed", "redirect_uris is required")
	case len(uris) == 0:
		return badRequest("validation_failed", "redirect_uris cannot be empty")
	case len(uris) > 10:
		return badRequest("validation_failed", "redirect_uris cannot exceed 10 items")
	}
	for _, u := range uris {
		if err := validateRedirectURI(u); err != nil {
			return badRequest("validation_failed", "invalid redirect_uri '%s': %v", u, err)
		}
	}
	return nil
}

func validateGrantTypes(grants []string) error {
	if len(grants) == 0 {
		return badRequest("validation_failed", "grant_types cannot be empty")
	}
	for _, g := range grants {
		if g != grantAuthorizationCode && g != grantRefreshToken {
			return badRequest("validation_failed", "grant_types must only contain 'authorization_code' and/or 'refresh_token'")
		}
	}
	return nil
}

// validateClientMeta checks the descriptive fields (nil: not given).
func validateClientMeta(name, uri, logo *string) error {
	if name != nil && len(*name) > 1024 {
		return badRequest("validation_failed", "client_name cannot exceed 1024 characters")
	}
	for _, f := range []struct {
		field string
		v     *string
	}{{"client_uri", uri}, {"logo_uri", logo}} {
		if f.v == nil || *f.v == "" {
			continue
		}
		if len(*f.v) > 2048 {
			return badRequest("validation_failed", "%s cannot exceed 2048 characters", f.field)
		}
		if _, err := url.ParseRequestURI(*f.v); err != nil {
			return badRequest("validation_failed", "%s must be a valid URL", f.field)
		}
	}
	return nil
}

// clientTypeFor is the type an auth method implies (confidential unless
// the method is none).
func clientTypeFor(method string) string {
	if method == authMethodNone {
		return clientPublic
	}
	return clientConfidential
}

// authMethodsFor lists the methods a client type may use.
func authMethodsFor(clientType string) []string {
	if clientType == clientPublic {
		return []string{authMethodNone}
	}
	return []string{authMethodBasic, authMethodPost}
}

// registerParams is the body of a client registration (admin or
// dynamic, RFC 7591's names); other fields are ignored.
type registerParams struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientType              string   `json:"client_type"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ClientName              string   `json:"client_name"`
	ClientURI               string   `json:"client_uri"`
	LogoURI                 string   `json:"logo_uri"`
}

// validate applies the reference's checks in its order.
func (p *registerParams) validate() error {
	if err := validateRedirectURIs(p.RedirectURIs, true); err != nil {
		return err
	}
	if len(p.GrantTypes) > 0 {
		if err := validateGrantTypes(p.GrantTypes); err != nil {
			return err
		}
	}
	if err := validateClientMeta(&p.ClientName, &p.ClientURI, &p.LogoURI); err != nil {
		return err
	}
	if p.ClientType != "" && p.ClientType != clientPublic && p.ClientType != clientConfidential {
		return badRequest("validation_failed", "client_type must be 'public' or 'confidential'")
	}
	if p.TokenEndpointAuthMethod != "" && !slices.Contains(allAuthMethods, p.TokenEndpointAuthMethod) {
		return badRequest("validation_failed", "token_endpoint_auth_method must be one of: %v", allAuthMethods)
	}
	if p.ClientType != "" && p.TokenEndpointAuthMethod != "" && clientTypeFor(p.TokenEndpointAuthMethod) != p.ClientType {
		return badRequest("validation_failed",
			"client_type '%s' is inconsistent with token_endpoint_auth_method '%s' (expected client_type '%s')",
			p.ClientType, p.TokenEndpointAuthMethod, clientTypeFor(p.TokenEndpointAuthMethod))
	}
	return nil
}

// registerClient validates p and stores a new client; the secret is ""
// for a public client.
func (s *Service) registerClient(ctx context.Context, p *registerParams, registration string) (*oauthClient, string, error) {
	if err := p.validate(); err != nil {
		// The reference wraps its own validation error once more, status
		// included, and clients see that text: "400: redirect_uris is
		// required".
		var ae *apiError
		if errors.As(err, &ae) {
			return nil, "", badRequest("validation_failed", "%d: %s", ae.Status, ae.Message)
		}
		return nil, "", err
	}
	grants := p.GrantTypes
	if len(grants) == 0 {
		grants = []string{grantAuthorizationCode, grantRefreshToken}
	}
	clientType := p.ClientType
	if clientType == "" {
		clientType = clientConfidential
		if p.TokenEndpointAuthMethod != "" {
			clientType = clientTypeFor(p.TokenEndpointAuthMethod)
		}
	}
	method := p.TokenEndpointAuthMethod
	if method == "" {
		// RFC 7591 §2: client_secret_basic unless said otherwise; a
		// public client has no secret to send.
		method = authMethodsFor(clientType)[0]
	}
	var secret string
	var hash *string
	if clientType == clientConfidential {
		var h string
		secret, h = newClientSecret()
		hash = &h
	}
	now := s.now()
	c, err := scanOAuthClient(s.db.QueryRow(ctx, `INSERT INTO auth.oauth_clients (id, client_secret_hash, registration_type,
		client_type, token_endpoint_auth_method, redirect_uris, grant_types, client_name, client_uri, logo_uri, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, nullif($8, ''), nullif($9, ''), nullif($10, ''), $11, $11)
		RETURNING `+oauthClientColumns,
		newUUID(), hash, registration, clientType, method, strings.Join(p.RedirectURIs, ","), strings.Join(grants, ","),
		p.ClientName, p.ClientURI, p.LogoURI, now))
	if err != nil {
		return nil, "", fmt.Errorf("register oauth client: %w", err)
	}
	return c, secret, nil
}

// adminOAuthClientRegister handles POST /admin/oauth/clients.
func (s *Service) adminOAuthClientRegister(w http.ResponseWriter, r *http.Request) error {
	return s.registerAnswer(w, r, "manual")
}

// oauthClientDynamicRegister handles POST /oauth/clients/register
// (RFC 7591), open to anyone when the setting allows it.
func (s *Service) oauthClientDynamicRegister(w http.ResponseWriter, r *http.Request) error {
	if !s.cfg.OAuthServer.AllowDynamicRegistration {
		return forbidden("oauth_dynamic_client_registration_disabled", "Dynamic client registration is not enabled")
	}
	return s.registerAnswer(w, r, "dynamic")
}

func (s *Service) registerAnswer(w http.ResponseWriter, r *http.Request, registration string) error {
	var p registerParams
	if err := oauthDecode(r, &p); err != nil {
		return err
	}
	c, secret, err := s.registerClient(r.Context(), &p, registration)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, c.json(secret))
	return nil
}

// clientFromPath loads the client the path's {client_id} names, with the
// reference's errors.
func (s *Service) clientFromPath(r *http.Request) (*oauthClient, error) {
	id := r.PathValue("client_id")
	if !isUUID(id) {
		return nil, badRequest("validation_failed", "invalid client_id format")
	}
	c, err := loadOAuthClient(r.Context(), s.db, id)
	if errors.Is(err, pg.ErrNotFound) {
		return nil, notFound("oauth_client_not_found", "OAuth client not found")
	}
	return c, err
}

// adminOAuthClientGet handles GET /admin/oauth/clients/{client_id}.
func (s *Service) adminOAuthClientGet(w http.ResponseWriter, r *http.Request) error {
	c, err := s.clientFromPath(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c.json(""))
	return nil
}

// adminOAuthClientList handles GET /admin/oauth/clients, newest first.
// Paging is Basalt's: with page or per_page, one page and the users
// list's Link and X-Total-Count headers; without, every client, as the
// reference answers.
func (s *Service) adminOAuthClientList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	paged := q.Get("page") != "" || q.Get("per_page") != ""
	page, perPage, err := pageParams(q)
	if err != nil {
		return err
	}
	ctx := r.Context()
	limit := ""
	if paged {
		var total int
		if err := s.db.QueryRow(ctx, `SELECT count(*) FROM auth.oauth_clients WHERE deleted_at IS NULL`).Scan(&total); err != nil {
			return fmt.Errorf("count oauth clients: %w", err)
		}
		setPageHeaders(w, r, page, perPage, total)
		limit = fmt.Sprintf(" LIMIT %d OFFSET %d", perPage, pageOffset(page, perPage))
	}
	rows, err := s.db.Query(ctx, `SELECT `+oauthClientColumns+` FROM auth.oauth_clients
		WHERE deleted_at IS NULL ORDER BY created_at DESC, id`+limit)
	if err != nil {
		return fmt.Errorf("list oauth clients: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (oauthClientJSON, error) {
		c, err := scanOAuthClient(row)
		if err != nil {
			return oauthClientJSON{}, err
		}
		return c.json(""), nil
	})
	if err != nil {
		return fmt.Errorf("list oauth clients: %w", err)
	}
	// The reference leaves "clients" out when there are none.
	body := map[string]any{}
	if len(list) > 0 {
		body["clients"] = list
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

// updateParams is the body of PUT /admin/oauth/clients/{client_id}: only
// the fields given change.
type updateParams struct {
	RedirectURIs            *[]string `json:"redirect_uris"`
	GrantTypes              *[]string `json:"grant_types"`
	ClientName              *string   `json:"client_name"`
	ClientURI               *string   `json:"client_uri"`
	LogoURI                 *string   `json:"logo_uri"`
	TokenEndpointAuthMethod *string   `json:"token_endpoint_auth_method"`
}

// adminOAuthClientUpdate handles PUT /admin/oauth/clients/{client_id}.
func (s *Service) adminOAuthClientUpdate(w http.ResponseWriter, r *http.Request) error {
	c, err := s.clientFromPath(r)
	if err != nil {
		return err
	}
	var p updateParams
	if err := oauthDecode(r, &p); err != nil {
		return err
	}
	if p == (updateParams{}) {
		return badRequest("validation_failed", "No fields provided for update")
	}
	if p.RedirectURIs != nil {
		if err := validateRedirectURIs(*p.RedirectURIs, false); err != nil {
			return err
		}
		c.RedirectURIs = *p.RedirectURIs
	}
	if p.GrantTypes != nil {
		if err := validateGrantTypes(*p.GrantTypes); err != nil {
			return err
		}
		c.GrantTypes = *p.GrantTypes
	}
	if err := validateClientMeta(p.ClientName, p.ClientURI, p.LogoURI); err != nil {
		return err
	}
	if m := p.TokenEndpointAuthMethod; m != nil {
		if !slices.Contains(allAuthMethods, *m) {
			return badRequest("validation_failed", "invalid token_endpoint_auth_method: must be one of %v", allAuthMethods)
		}
		if !slices.Contains(authMethodsFor(c.ClientType), *m) {
			return badRequest("validation_failed", "token_endpoint_auth_method '%s' is not valid for client_type '%s'; valid methods: %v",
				*m, c.ClientType, authMethodsFor(c.ClientType))
		}
		c.AuthMethod = *m
	}
	for _, f := range []struct{ dst, src **string }{{&c.Name, &p.ClientName}, {&c.URI, &p.ClientURI}, {&c.Logo, &p.LogoURI}} {
		if *f.src != nil {
			*f.dst = *f.src
		}
	}
	c, err = scanOAuthClient(s.db.QueryRow(r.Context(), `UPDATE auth.oauth_clients SET redirect_uris = $2, grant_types = $3,
		client_name = nullif($4, ''), client_uri = nullif($5, ''), logo_uri = nullif($6, ''), token_endpoint_auth_method = $7,
		updated_at = $8 WHERE id = $1 AND deleted_at IS NULL RETURNING `+oauthClientColumns,
		c.ID, strings.Join(c.RedirectURIs, ","), strings.Join(c.GrantTypes, ","), deref(c.Name), deref(c.URI), deref(c.Logo),
		c.AuthMethod, s.now()))
	if errors.Is(err, pg.ErrNotFound) {
		return notFound("oauth_client_not_found", "OAuth client not found")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c.json(""))
	return nil
}

// adminOAuthClientDelete handles DELETE /admin/oauth/clients/{client_id}.
// The row stays, marked deleted, as in the reference; Basalt also ends
// the client's sessions at once, so its tokens stop refreshing and its
// users' access stops with their next request to auth.
func (s *Service) adminOAuthClientDelete(w http.ResponseWriter, r *http.Request) error {
	c, err := s.clientFromPath(r)
	if err != nil {
		return err
	}
	err = s.inTx(r.Context(), func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(`UPDATE auth.oauth_clients SET deleted_at = $2, updated_at = $2 WHERE id = $1`, c.ID, s.now())
		b.Queue(`DELETE FROM auth.sessions WHERE oauth_client_id = $1`, c.ID)
		b.Queue(`UPDATE auth.oauth_consents SET revoked_at = greatest($2, granted_at) WHERE client_id = $1 AND revoked_at IS NULL`, c.ID, s.now())
		return tx.SendBatch(r.Context(), b).Close()
	})
	if err != nil {
		return fmt.Errorf("delete oauth client %s: %w", c.ID, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// adminOAuthClientRegenerateSecret handles
// POST /admin/oauth/clients/{client_id}/regenerate_secret: the old secret
// stops working at once.
func (s *Service) adminOAuthClientRegenerateSecret(w http.ResponseWriter, r *http.Request) error {
	c, err := s.clientFromPath(r)
	if err != nil {
		return err
	}
	if c.ClientType != clientConfidential {
		return badRequest("validation_failed", "Cannot regenerate secret for public client")
	}
	secret, hash := newClientSecret()
	c, err = scanOAuthClient(s.db.QueryRow(r.Context(), `UPDATE auth.oauth_clients SET client_secret_hash = $2, updated_at = $3
		WHERE id = $1 AND deleted_at IS NULL RETURNING `+oauthClientColumns, c.ID, hash, s.now()))
	if err != nil {
		return fmt.Errorf("regenerate secret of oauth client: %w", err)
	}
	writeJSON(w, http.StatusOK, c.json(secret))
	return nil
}
