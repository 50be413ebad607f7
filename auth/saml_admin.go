package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/crewjam/saml"
	"github.com/jackc/pgx/v5"
	xrv "github.com/mattermost/xml-roundtrip-validator"

	"github.com/basaltdev/basalt/internal/pg"
)

// ssoProvider is an SSO identity provider in the reference's JSON shape.
type ssoProvider struct {
	ID         string       `json:"id"`
	ResourceID *string      `json:"resource_id,omitempty"`
	Disabled   *bool        `json:"disabled"`
	SAML       samlProvider `json:"saml"`
	Domains    []ssoDomain  `json:"domains"`
	CreatedAt  time.Time    `json:"created_at"`
	UpdatedAt  time.Time    `json:"updated_at"`
}

func (p *ssoProvider) enabled() bool { return p.Disabled == nil || !*p.Disabled }

// samlProvider is the SAML connection of an SSO provider.
type samlProvider struct {
	EntityID         string               `json:"entity_id"`
	MetadataXML      string               `json:"metadata_xml,omitempty"`
	MetadataURL      *string              `json:"metadata_url,omitempty"`
	AttributeMapping samlAttributeMapping `json:"attribute_mapping"`
	NameIDFormat     *string              `json:"name_id_format,omitempty"`
	updatedAt        time.Time
}

// samlAttributeMapping maps assertion attributes to user claims.
type samlAttributeMapping struct {
	Keys map[string]samlAttribute `json:"keys,omitempty"`
}

// samlAttribute says where one claim comes from: the first attribute of
// name or names with a value (all values when array), else default.
type samlAttribute struct {
	Name    string   `json:"name,omitempty"`
	Names   []string `json:"names,omitempty"`
	Default any      `json:"default,omitempty"`
	Array   bool     `json:"array,omitempty"`
}

type ssoDomain struct {
	Domain string `json:"domain"`
}

const ssoProviderSelect = `SELECT p.id, p.resource_id, p.disabled, coalesce(p.created_at, now()), coalesce(p.updated_at, now()),
	s.entity_id, s.metadata_xml, s.metadata_url, coalesce(s.attribute_mapping, '{}'), s.name_id_format, coalesce(s.updated_at, now()),
	(SELECT coalesce(json_agg(json_build_object('domain', d.domain) ORDER BY d.domain), '[]')
	 FROM auth.sso_domains d WHERE d.sso_provider_id = p.id)
	FROM auth.sso_providers p JOIN auth.saml_providers s ON s.sso_provider_id = p.id`

func scanSSOProvider(row pgx.Row) (*ssoProvider, error) {
	p := &ssoProvider{}
	var domains []byte
	err := row.Scan(&p.ID, &p.ResourceID, &p.Disabled, &p.CreatedAt, &p.UpdatedAt, &p.SAML.EntityID, &p.SAML.MetadataXML,
		&p.SAML.MetadataURL, &p.SAML.AttributeMapping, &p.SAML.NameIDFormat, &p.SAML.updatedAt, &domains)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, pg.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load sso provider: %w", err)
	}
	p.CreatedAt, p.UpdatedAt = p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	return p, json.Unmarshal(domains, &p.Domains)
}

// ssoProviderWhere loads the provider matching a condition on p, s.
func ssoProviderWhere(ctx context.Context, db pg.DB, where string, args ...any) (*ssoProvider, error) {
	return scanSSOProvider(db.QueryRow(ctx, ssoProviderSelect+` WHERE `+where+` LIMIT 1`, args...))
}

// ssoProviderByDomain finds the provider an email domain is assigned to.
func ssoProviderByDomain(ctx context.Context, db pg.DB, domain string) (*ssoProvider, error) {
	return ssoProviderWhere(ctx, db, `p.id = (SELECT sso_provider_id FROM auth.sso_domains WHERE lower(domain) = lower($1))`, domain)
}

// adminSSOProvider loads the provider of the {idp_id} path parameter: a
// UUID, or resource_<id>.
func (s *Service) adminSSOProvider(r *http.Request) (*ssoProvider, error) {
	idp := r.PathValue("idp_id")
	var p *ssoProvider
	var err error
	switch {
	case strings.HasPrefix(idp, "resource_"):
		p, err = ssoProviderWhere(r.Context(), s.db, `lower(p.resource_id) = lower($1)`, strings.TrimPrefix(idp, "resource_"))
	case isUUID(idp):
		p, err = ssoProviderWhere(r.Context(), s.db, `p.id = $1`, idp)
	default:
		err = pg.ErrNotFound
	}
	if errors.Is(err, pg.ErrNotFound) {
		return nil, notFound("sso_provider_not_found", "SSO Identity Provider not found")
	}
	return p, err
}

// adminSSOProvidersList handles GET /admin/sso/providers (metadata XML
// left out; ?resource_id= or ?resource_id_prefix= filter).
func (s *Service) adminSSOProvidersList(w http.ResponseWriter, r *http.Request) error {
	q, args := ssoProviderSelect, []any{}
	if v := r.URL.Query().Get("resource_id"); v != "" {
		q, args = q+` WHERE p.resource_id = $1`, append(args, v)
	} else if v := r.URL.Query().Get("resource_id_prefix"); v != "" {
		q, args = q+` WHERE p.resource_id LIKE $1 || '%'`, append(args, v)
	}
	rows, err := s.db.Query(r.Context(), q+` ORDER BY p.created_at, p.id`, args...)
	if err != nil {
		return err
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*ssoProvider, error) { return scanSSOProvider(row) })
	if err != nil {
		return err
	}
	for _, p := range items {
		p.SAML.MetadataXML = ""
	}
	if items == nil {
		items = []*ssoProvider{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
	return nil
}

func (s *Service) adminSSOProvidersGet(w http.ResponseWriter, r *http.Request) error {
	p, err := s.adminSSOProvider(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

// ssoProviderParams is the body of the create and update calls.
type ssoProviderParams struct {
	Type             string                `json:"type"`
	MetadataURL      string                `json:"metadata_url"`
	MetadataXML      string                `json:"metadata_xml"`
	Domains          []string              `json:"domains"`
	AttributeMapping *samlAttributeMapping `json:"attribute_mapping"`
	NameIDFormat     *string               `json:"name_id_format"`
	ResourceID       *string               `json:"resource_id"`
	Disabled         *bool                 `json:"disabled"`
}

func (p *ssoProviderParams) validate(update bool) error {
	switch {
	case !update && p.Type != "saml":
		return badRequest("validation_failed", "Only 'saml' supported for SSO provider type")
	case p.MetadataURL != "" && p.MetadataXML != "":
		return badRequest("validation_failed", "Only one of metadata_xml or metadata_url needs to be set")
	case !update && p.MetadataURL == "" && p.MetadataXML == "":
		return badRequest("validation_failed", "Either metadata_xml or metadata_url must be set")
	case p.MetadataURL != "":
		u, err := url.ParseRequestURI(p.MetadataURL)
		if err != nil {
			return badRequest("validation_failed", "metadata_url is not a valid URL")
		}
		if u.Scheme != "https" {
			return badRequest("validation_failed", "metadata_url is not a HTTPS URL")
		}
	}
	if p.NameIDFormat != nil {
		switch saml.NameIDFormat(*p.NameIDFormat) {
		case "", saml.PersistentNameIDFormat, saml.EmailAddressNameIDFormat, saml.TransientNameIDFormat, saml.UnspecifiedNameIDFormat:
		default:
			return badRequest("validation_failed", "name_id_format must be unspecified or one of %s", strings.Join([]string{
				string(saml.PersistentNameIDFormat), string(saml.EmailAddressNameIDFormat),
				string(saml.TransientNameIDFormat), string(saml.UnspecifiedNameIDFormat)}, ", "))
		}
	}
	return nil
}

// metadata reads the IdP metadata the params give (inline or by URL).
func (s *Service) metadata(ctx context.Context, p *ssoProviderParams) ([]byte, *saml.EntityDescriptor, error) {
	raw := []byte(p.MetadataXML)
	if p.MetadataURL != "" {
		var err error
		if raw, err = s.fetchSAMLMetadata(ctx, p.MetadataURL); err != nil {
			return nil, nil, err
		}
	}
	ed, err := parseSAMLMetadata(raw)
	return raw, ed, err
}

// parseSAMLMetadata parses IdP metadata with the reference's checks: one
// entity with an entity id and exactly one IDP SSO descriptor.
func parseSAMLMetadata(raw []byte) (*saml.EntityDescriptor, error) {
	if !utf8.Valid(raw) {
		return nil, badRequest("validation_failed", "SAML Metadata XML contains invalid UTF-8 characters, which are not supported at this time")
	}
	// Reject XML whose meaning changes when re-encoded: signature wrapping
	// attacks rely on it.
	if err := xrv.Validate(bytes.NewReader(raw)); err != nil {
		return nil, &apiError{Status: http.StatusBadRequest, Code: "validation_failed", Message: "SAML Metadata XML is not valid", Cause: err}
	}
	ed := &saml.EntityDescriptor{}
	err := xml.Unmarshal(raw, ed)
	if err != nil && strings.Contains(err.Error(), "<EntitiesDescriptor>") {
		var all saml.EntitiesDescriptor
		if err = xml.Unmarshal(raw, &all); err == nil {
			err = errors.New("no IDPSSODescriptor in any EntityDescriptor")
			for i := range all.EntityDescriptors {
				if len(all.EntityDescriptors[i].IDPSSODescriptors) > 0 {
					ed, err = &all.EntityDescriptors[i], nil
					break
				}
			}
		}
	}
	if err != nil {
		return nil, &apiError{Status: http.StatusBadRequest, Code: "validation_failed", Message: "SAML Metadata XML is not valid", Cause: err}
	}
	switch {
	case ed.EntityID == "":
		return nil, badRequest("validation_failed", "SAML Metadata does not contain an EntityID")
	case len(ed.IDPSSODescriptors) < 1:
		return nil, badRequest("validation_failed", "SAML Metadata does not contain any IDPSSODescriptor")
	case len(ed.IDPSSODescriptors) > 1:
		return nil, badRequest("validation_failed", "SAML Metadata contains multiple IDPSSODescriptors")
	}
	return ed, nil
}

// fetchSAMLMetadata downloads IdP metadata.
func (s *Service) fetchSAMLMetadata(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, internalErr(err)
	}
	req.Header.Set("Accept", "application/xml;charset=UTF-8")
	res, err := s.httpClient.Do(req)
	if err != nil {
		return nil, &apiError{Status: http.StatusBadRequest, Code: "saml_metadata_fetch_failed",
			Message: fmt.Sprintf("Error fetching SAML Metadata from URL '%s'", u), Cause: err}
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, badRequest("saml_metadata_fetch_failed", "HTTP %v error fetching SAML Metadata from URL '%s'", res.StatusCode, u)
	}
	return io.ReadAll(io.LimitReader(res.Body, 4<<20))
}

// adminSSOProvidersCreate handles POST /admin/sso/providers: 201 with the
// provider.
func (s *Service) adminSSOProvidersCreate(w http.ResponseWriter, r *http.Request) error {
	var p ssoProviderParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if err := p.validate(false); err != nil {
		return err
	}
	ctx := r.Context()
	raw, ed, err := s.metadata(ctx, &p)
	if err != nil {
		return err
	}
	id := newUUID()
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM auth.saml_providers WHERE entity_id = $1)`, ed.EntityID).Scan(&exists); err != nil {
			return err
		}
		if exists {
			return unprocessable("saml_idp_already_exists", "SAML Identity Provider with this EntityID (%s) already exists", ed.EntityID)
		}
		now := s.now()
		if _, err := tx.Exec(ctx, `INSERT INTO auth.sso_providers (id, resource_id, disabled, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4)`, id, p.ResourceID, p.Disabled, now); err != nil {
			return err
		}
		mapping := samlAttributeMapping{}
		if p.AttributeMapping != nil {
			mapping = *p.AttributeMapping
		}
		var metadataURL *string
		if p.MetadataURL != "" {
			metadataURL = &p.MetadataURL
		}
		if _, err := tx.Exec(ctx, `INSERT INTO auth.saml_providers (id, sso_provider_id, entity_id, metadata_xml, metadata_url,
			attribute_mapping, name_id_format, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, nullif($7, ''), $8, $8)`,
			newUUID(), id, ed.EntityID, string(raw), metadataURL, mapping, p.NameIDFormat, now); err != nil {
			return err
		}
		return s.addSSODomains(ctx, tx, id, p.Domains)
	})
	if err != nil {
		return err
	}
	out, err := ssoProviderWhere(ctx, s.db, `p.id = $1`, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// addSSODomains assigns domains to a provider; a domain another provider
// has is refused.
func (s *Service) addSSODomains(ctx context.Context, tx pgx.Tx, providerID string, domains []string) error {
	now := s.now()
	for _, d := range domains {
		var owner string
		err := tx.QueryRow(ctx, `SELECT sso_provider_id FROM auth.sso_domains WHERE lower(domain) = lower($1)`, d).Scan(&owner)
		switch {
		case err == nil && owner == providerID:
			continue
		case err == nil:
			return badRequest("sso_domain_already_exists", "SSO Domain '%s' is already assigned to an SSO identity provider (%s)", d, owner)
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO auth.sso_domains (id, sso_provider_id, domain, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4)`, newUUID(), providerID, d, now); err != nil {
			return err
		}
	}
	return nil
}

// adminSSOProvidersUpdate handles PUT /admin/sso/providers/{idp_id}:
// metadata (same entity id only), domains (the list given replaces the
// old one), attribute mapping, NameID format, resource id, disabled.
func (s *Service) adminSSOProvidersUpdate(w http.ResponseWriter, r *http.Request) error {
	var p ssoProviderParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if err := p.validate(true); err != nil {
		return err
	}
	cur, err := s.adminSSOProvider(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var raw []byte
	if p.MetadataXML != "" || p.MetadataURL != "" {
		var ed *saml.EntityDescriptor
		if raw, ed, err = s.metadata(ctx, &p); err != nil {
			return err
		}
		if ed.EntityID != cur.SAML.EntityID {
			return badRequest("saml_entity_id_mismatch", "SAML Metadata can be updated only if the EntityID matches for the provider; expected '%s' but got '%s'",
				cur.SAML.EntityID, ed.EntityID)
		}
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		now := s.now()
		if raw != nil {
			if _, err := tx.Exec(ctx, `UPDATE auth.saml_providers SET metadata_xml = $2, metadata_url = coalesce(nullif($3, ''), metadata_url),
				updated_at = $4 WHERE sso_provider_id = $1`, cur.ID, string(raw), p.MetadataURL, now); err != nil {
				return err
			}
		}
		if p.AttributeMapping != nil && !reflect.DeepEqual(*p.AttributeMapping, cur.SAML.AttributeMapping) {
			if _, err := tx.Exec(ctx, `UPDATE auth.saml_providers SET attribute_mapping = $2, updated_at = $3 WHERE sso_provider_id = $1`,
				cur.ID, *p.AttributeMapping, now); err != nil {
				return err
			}
		}
		if p.NameIDFormat != nil {
			if _, err := tx.Exec(ctx, `UPDATE auth.saml_providers SET name_id_format = nullif($2, ''), updated_at = $3 WHERE sso_provider_id = $1`,
				cur.ID, *p.NameIDFormat, now); err != nil {
				return err
			}
		}
		if p.Domains != nil {
			if _, err := tx.Exec(ctx, `DELETE FROM auth.sso_domains WHERE sso_provider_id = $1 AND NOT (lower(domain) = any($2))`,
				cur.ID, lowerAll(p.Domains)); err != nil {
				return err
			}
			if err := s.addSSODomains(ctx, tx, cur.ID, p.Domains); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `UPDATE auth.sso_providers SET
			resource_id = CASE WHEN $2::text IS NULL THEN resource_id ELSE nullif($2, '') END,
			disabled = coalesce($3, disabled), updated_at = $4 WHERE id = $1`, cur.ID, p.ResourceID, p.Disabled, now)
		return err
	})
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) {
			return err
		}
		return &apiError{Status: http.StatusUnprocessableEntity, Code: "conflict",
			Message: "Updating SSO provider failed, likely due to a conflict. Try again?", Cause: err}
	}
	out, err := ssoProviderWhere(ctx, s.db, `p.id = $1`, cur.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func lowerAll(v []string) []string {
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = strings.ToLower(s)
	}
	return out
}

// adminSSOProvidersDelete handles DELETE /admin/sso/providers/{idp_id}:
// 200 with the deleted provider. Its users' SSO identities stay (their
// accounts are the users'), but no one can sign in through it any more.
func (s *Service) adminSSOProvidersDelete(w http.ResponseWriter, r *http.Request) error {
	p, err := s.adminSSOProvider(r)
	if err != nil {
		return err
	}
	if _, err := s.db.Exec(r.Context(), `DELETE FROM auth.sso_providers WHERE id = $1`, p.ID); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}
