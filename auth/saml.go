package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/crewjam/saml"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// samlSP is Basalt as a SAML service provider for one identity provider
// (idp nil: for the metadata document). Its entity id is the URL of its
// metadata, as the reference's.
func (s *Service) samlSP(idp *saml.EntityDescriptor, idpInitiated bool) *saml.ServiceProvider {
	base, _ := url.Parse(strings.TrimSuffix(s.cfg.SAML.ExternalURL, "/") + "/sso/")
	metadata, acs, slo := *base, *base, *base
	metadata.Path += "saml/metadata"
	acs.Path += "saml/acs"
	slo.Path += "saml/slo"
	return &saml.ServiceProvider{
		EntityID:          metadata.String(),
		Key:               s.cfg.SAML.PrivateKey,
		Certificate:       s.samlCert,
		MetadataURL:       metadata,
		AcsURL:            acs,
		SloURL:            slo,
		IDPMetadata:       idp,
		AllowIDPInitiated: idpInitiated,
		AuthnNameIDFormat: saml.PersistentNameIDFormat,
		SignatureMethod:   "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
		HTTPClient:        s.httpClient,
		// The reference's metadata names one single logout service
		// (HTTP-POST, at …/sso/saml/slo) that it does not serve; so does
		// Basalt's, so metadata written for one fits the other.
		LogoutBindings: []string{saml.HTTPPostBinding},
	}
}

// requireSAML answers as the reference does while SSO is off.
func (s *Service) requireSAML(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.cfg.SAML.Enabled {
			return notFound("saml_provider_disabled", "SAML 2.0 is disabled")
		}
		return h(w, r)
	}
}

// ssoParams is the body of POST /sso (signInWithSSO).
type ssoParams struct {
	ProviderID          string `json:"provider_id" validate:"excluded_with=Domain" msg:"Only one of provider_id or domain supported"`
	Domain              string `json:"domain" validate:"required_without=ProviderID" msg:"A provider_id or domain needs to be provided"`
	RedirectTo          string `json:"redirect_to"`
	SkipHTTPRedirect    *bool  `json:"skip_http_redirect"`
	CodeChallenge       string `json:"code_challenge"`
	CodeChallengeMethod string `json:"code_challenge_method"`
}

// singleSignOn handles POST /sso (contract E20): the identity provider of
// provider_id or of an email domain gets a signed AuthnRequest; the
// relay state row remembers it (single use, RelayStateValidity).
func (s *Service) singleSignOn(w http.ResponseWriter, r *http.Request) error {
	var p ssoParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.ProviderID != "" && !isUUID(p.ProviderID) {
		return badRequest("bad_json", "Could not parse request body as JSON: provider_id is not a UUID")
	}
	if err := checkBody(&p); err != nil {
		return err
	}
	ctx := r.Context()
	var prov *ssoProvider
	var err error
	if p.ProviderID != "" {
		if prov, err = ssoProviderWhere(ctx, s.db, `p.id = $1`, p.ProviderID); errors.Is(err, pg.ErrNotFound) {
			return notFound("sso_provider_not_found", "No such SSO provider")
		}
	} else if prov, err = ssoProviderByDomain(ctx, s.db, p.Domain); errors.Is(err, pg.ErrNotFound) {
		return notFound("sso_provider_not_found", "No SSO provider assigned for this domain")
	}
	if err != nil {
		return err
	}
	if !prov.enabled() {
		return notFound("sso_provider_disabled", "SSO Provider is currently disabled")
	}
	pkce, err := checkPKCEParams(p.CodeChallenge, p.CodeChallengeMethod)
	if err != nil {
		return err
	}
	ed, err := parseSAMLMetadata([]byte(prov.SAML.MetadataXML))
	if err != nil {
		return internalErr(fmt.Errorf("metadata of SSO provider %s: %w", prov.ID, err))
	}
	sp := s.samlSP(ed, false)
	req, err := sp.MakeAuthenticationRequest(sp.GetSSOBindingLocation(saml.HTTPRedirectBinding), saml.HTTPRedirectBinding, saml.HTTPPostBinding)
	if err != nil {
		return internalErr(fmt.Errorf("make SAML authentication request: %w", err))
	}
	// Some IdPs refuse the persistent NameID format and need another.
	if prov.SAML.NameIDFormat != nil && req.NameIDPolicy != nil {
		req.NameIDPolicy.Format = prov.SAML.NameIDFormat
	}
	relayID, flowID := newUUID(), newUUID()
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		now := s.now()
		var authCode, challenge, method *string
		if pkce {
			code, m := newUUID(), strings.ToLower(p.CodeChallengeMethod)
			authCode, challenge, method = &code, &p.CodeChallenge, &m
		}
		if _, err := tx.Exec(ctx, `INSERT INTO auth.flow_state (id, auth_code, code_challenge_method, code_challenge,
			provider_type, authentication_method, created_at, updated_at, referrer)
			VALUES ($1, $2, $3, $4, 'sso/saml', 'sso/saml', $5, $5, $6)`, flowID, authCode, method, challenge, now, p.RedirectTo); err != nil {
			return fmt.Errorf("create flow state: %w", err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM auth.saml_relay_states WHERE id IN (SELECT id FROM auth.saml_relay_states
			WHERE created_at < $1 LIMIT 100 FOR UPDATE SKIP LOCKED)`, now.Add(-24*time.Hour)); err != nil {
			return fmt.Errorf("sweep relay states: %w", err)
		}
		_, err := tx.Exec(ctx, `INSERT INTO auth.saml_relay_states (id, sso_provider_id, request_id, redirect_to, created_at,
			updated_at, flow_state_id) VALUES ($1, $2, $3, $4, $5, $5, $6)`, relayID, prov.ID, req.ID, p.RedirectTo, now, flowID)
		return err
	})
	if err != nil {
		return err
	}
	to, err := req.Redirect(relayID, sp)
	if err != nil {
		return internalErr(fmt.Errorf("SAML redirect: %w", err))
	}
	if p.SkipHTTPRedirect != nil && *p.SkipHTTPRedirect {
		writeJSON(w, http.StatusOK, map[string]string{"url": to.String()})
		return nil
	}
	http.Redirect(w, r, to.String(), http.StatusSeeOther)
	return nil
}

// samlMetadata handles GET /sso/saml/metadata: Basalt's service provider
// metadata for identity provider administrators (?download=true makes it
// an attachment valid for five years).
func (s *Service) samlMetadata(w http.ResponseWriter, r *http.Request) error {
	md := s.samlSP(nil, true).Metadata()
	download := r.URL.Query().Get("download") == "true"
	if download {
		md.ValidUntil = s.now().UTC().AddDate(5, 0, 0)
	}
	for i := range md.SPSSODescriptors {
		d := &md.SPSSODescriptors[i]
		// Identity-provider-initiated sign-ins sign only the assertion.
		d.AuthnRequestsSigned = nil
		d.NameIDFormats = []saml.NameIDFormat{saml.EmailAddressNameIDFormat, saml.PersistentNameIDFormat}
		var keys []saml.KeyDescriptor
		for _, k := range d.KeyDescriptors {
			if k.Use == "signing" || (s.cfg.SAML.AllowEncryptedAssertions && k.Use == "encryption") {
				keys = append(keys, k)
			}
		}
		d.KeyDescriptors = keys
	}
	b, err := xml.Marshal(md)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Cache-Control", "public, max-age=600")
	if download {
		w.Header().Set("Content-Disposition", `attachment; filename="metadata.xml"`)
	}
	_, err = w.Write(b)
	return err
}

// samlACS handles POST /sso/saml/acs, where the identity provider's
// browser form lands. Every failure sends the browser to the site URL
// with the error (303), as the reference does.
func (s *Service) samlACS(w http.ResponseWriter, r *http.Request) error {
	to, err := s.consumeAssertion(r)
	if err != nil {
		site, perr := url.Parse(s.cfg.SiteURL)
		if perr != nil {
			return internalErr(perr)
		}
		site.RawQuery = s.errorParams(r.Context(), err, site.Query()).Encode()
		http.Redirect(w, r, site.String(), http.StatusSeeOther)
		return nil
	}
	http.Redirect(w, r, to, http.StatusFound)
	return nil
}

// samlSignIn is what an ACS request is about: which provider, the
// requests it may answer, the flow and where to go after.
type samlSignIn struct {
	provider     *ssoProvider
	requestIDs   []string
	flowID       string
	redirectTo   string
	idpInitiated bool
}

// samlRelay resolves the RelayState: a relay state row (Basalt started
// the sign-in; single use), or empty or a URL (the identity provider did).
func (s *Service) samlRelay(ctx context.Context, r *http.Request) (*samlSignIn, error) {
	rs := r.PostForm.Get("RelayState")
	if isUUID(rs) {
		var providerID, requestID, redirect string
		var flowID *string
		var created time.Time
		err := s.db.QueryRow(ctx, `DELETE FROM auth.saml_relay_states WHERE id = $1
			RETURNING sso_provider_id, request_id, coalesce(redirect_to, ''), flow_state_id, coalesce(created_at, now())`, rs).
			Scan(&providerID, &requestID, &redirect, &flowID, &created)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, notFound("saml_relay_state_not_found", "SAML RelayState does not exist, try logging in again?")
		}
		if err != nil {
			return nil, err
		}
		if s.now().Sub(created) >= s.cfg.SAML.RelayStateValidity {
			return nil, unprocessable("saml_relay_state_expired", "SAML RelayState has expired. Try logging in again?")
		}
		p, err := ssoProviderWhere(ctx, s.db, `p.id = $1`, providerID)
		if err != nil {
			return nil, internalErr(fmt.Errorf("SSO provider of relay state: %w", err))
		}
		in := &samlSignIn{provider: p, requestIDs: []string{requestID}, redirectTo: redirect}
		if flowID != nil {
			in.flowID = *flowID
		}
		return in, nil
	}
	if u, err := url.ParseRequestURI(rs); rs != "" && (err != nil || u.Scheme == "") {
		return nil, badRequest("validation_failed", "SAML RelayState is not a valid UUID or URL")
	}
	if r.PostForm.Get("SAMLart") != "" {
		return nil, badRequest("validation_failed", "SAML Artifact response can only be used with SP initiated flow")
	}
	raw := r.PostForm.Get("SAMLResponse")
	if raw == "" {
		return nil, badRequest("validation_failed", "SAMLResponse is missing")
	}
	doc, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return nil, badRequest("validation_failed", "SAMLResponse is not a valid Base64 string")
	}
	var peek saml.Response
	if err := xml.Unmarshal(doc, &peek); err != nil || peek.Issuer == nil {
		return nil, badRequest("validation_failed", "SAMLResponse is not a valid XML SAML assertion")
	}
	p, err := ssoProviderWhere(ctx, s.db, `s.entity_id = $1`, peek.Issuer.Value)
	if errors.Is(err, pg.ErrNotFound) {
		return nil, notFound("saml_idp_not_found", "A SAML connection has not been established with this Identity Provider")
	}
	if err != nil {
		return nil, err
	}
	return &samlSignIn{provider: p, redirectTo: rs, idpInitiated: true}, nil
}

// consumeAssertion verifies the SAML response (signature against the
// identity provider's metadata, audience, recipient, validity window,
// and for sign-ins Basalt started the request it answers) and signs the
// user in; it returns where the browser goes.
func (s *Service) consumeAssertion(r *http.Request) (string, error) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		return "", badRequest("validation_failed", "Could not read the SAML form")
	}
	in, err := s.samlRelay(ctx, r)
	if err != nil {
		return "", err
	}
	prov := in.provider
	if !prov.enabled() {
		return "", notFound("sso_provider_disabled", "SSO Provider assigned for this domain is currently disabled")
	}
	ed, err := s.freshMetadata(ctx, prov)
	if err != nil {
		return "", err
	}
	a, err := s.samlSP(ed, in.idpInitiated).ParseResponse(r, in.requestIDs)
	if err != nil {
		var ire *saml.InvalidResponseError
		if errors.As(err, &ire) {
			return "", &apiError{Status: http.StatusBadRequest, Code: "validation_failed",
				Message: "SAML Assertion is not valid " + ire.Response, Cause: ire.PrivateErr}
		}
		return "", &apiError{Status: http.StatusBadRequest, Code: "validation_failed", Message: "SAML Assertion is not valid", Cause: err}
	}
	pu, err := samlUser(a, prov)
	if err != nil {
		return "", err
	}
	name := "sso:" + prov.ID
	redirect := in.redirectTo
	if redirect == "" || !s.redirectAllowed(redirect) {
		redirect = s.cfg.SiteURL
	}
	var resp *tokenResponse
	var code string
	err = s.inTxCommitting(ctx, func(tx pgx.Tx) error {
		u, err := s.externalSignIn(ctx, tx, r, pu, name, false, redirect)
		if err != nil {
			return err
		}
		if in.flowID != "" {
			// A sign-in started with a code challenge ends with an auth
			// code, once.
			var authCode, userID *string
			err := tx.QueryRow(ctx, `SELECT auth_code, user_id FROM auth.flow_state WHERE id = $1 FOR UPDATE`, in.flowID).Scan(&authCode, &userID)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				in.flowID = ""
			case err != nil:
				return err
			case authCode != nil && userID != nil:
				return badRequest("flow_state_already_used", "State has already been used")
			case authCode != nil:
				code = *authCode
				_, err := tx.Exec(ctx, `UPDATE auth.flow_state SET user_id = $2, auth_code_issued_at = $3, updated_at = $3
					WHERE id = $1`, in.flowID, u.ID, s.now())
				return err
			}
		}
		if resp, err = s.issueSession(ctx, tx, r, u, "sso/saml"); err != nil {
			return err
		}
		if in.flowID != "" {
			if _, err := tx.Exec(ctx, `DELETE FROM auth.flow_state WHERE id = $1`, in.flowID); err != nil {
				return err
			}
		}
		return s.limitSession(ctx, tx, a, resp)
	})
	if err != nil {
		return "", err
	}
	if code != "" {
		return addQuery(redirect, url.Values{"code": {code}}), nil
	}
	return tokenFragment(redirect, resp, nil), nil
}

// limitSession ends the new session when the identity provider says the
// user's session there ends (SessionNotOnOrAfter).
func (s *Service) limitSession(ctx context.Context, tx pgx.Tx, a *saml.Assertion, resp *tokenResponse) error {
	for _, st := range a.AuthnStatements {
		if st.SessionNotOnOrAfter != nil && !st.SessionNotOnOrAfter.IsZero() {
			c, err := s.keys.Verify(resp.AccessToken, s.now())
			if err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `UPDATE auth.sessions SET not_after = $2 WHERE id = $1`, c.SessionID, st.SessionNotOnOrAfter.UTC())
			return err
		}
	}
	return nil
}

// freshMetadata is the provider's IdP metadata, fetched again from its
// metadata URL once it says it is stale (or a day has passed); a failed
// fetch keeps the stored one, as the reference does.
func (s *Service) freshMetadata(ctx context.Context, p *ssoProvider) (*saml.EntityDescriptor, error) {
	ed, err := parseSAMLMetadata([]byte(p.SAML.MetadataXML))
	if err != nil {
		return nil, internalErr(err)
	}
	if p.SAML.MetadataURL == nil || *p.SAML.MetadataURL == "" {
		return ed, nil
	}
	now := time.Now()
	stale := (!ed.ValidUntil.IsZero() && now.After(ed.ValidUntil)) ||
		(ed.CacheDuration != 0 && now.After(p.SAML.updatedAt.Add(ed.CacheDuration))) ||
		(ed.ValidUntil.IsZero() && ed.CacheDuration == 0 && now.After(p.SAML.updatedAt.Add(24*time.Hour)))
	if !stale {
		return ed, nil
	}
	raw, err := s.fetchSAMLMetadata(ctx, *p.SAML.MetadataURL)
	if err == nil {
		var fresh *saml.EntityDescriptor
		if fresh, err = parseSAMLMetadata(raw); err == nil && fresh.EntityID == ed.EntityID {
			if _, err := s.db.Exec(ctx, `UPDATE auth.saml_providers SET metadata_xml = $2, updated_at = $3 WHERE entity_id = $1`,
				ed.EntityID, string(raw), s.now()); err != nil {
				return nil, err
			}
			return fresh, nil
		}
	}
	s.log.WarnContext(ctx, "SAML metadata could not be refreshed, continuing with the stored one", "sso_provider_id", p.ID, "err", err)
	return ed, nil
}

// samlSubjectID is the attribute name of a SAML subject identifier.
const samlSubjectID = "urn:oasis:names:tc:SAML:attribute:subject-id"

// samlAttr returns the values of attributes with name (or friendly name).
func samlAttr(a *saml.Assertion, name string) []saml.AttributeValue {
	var out []saml.AttributeValue
	for _, st := range a.AttributeStatements {
		for _, at := range st.Attributes {
			if strings.EqualFold(at.Name, name) || strings.EqualFold(at.FriendlyName, name) {
				out = append(out, at.Values...)
			}
		}
	}
	return out
}

// samlUser reads the user from an assertion as the reference does: the
// subject-id attribute or a non-transient NameID identifies them, the
// attribute mapping gives the claims, and the address comes from the
// mapping or the usual email attributes; SSO addresses count as verified.
func samlUser(a *saml.Assertion, p *ssoProvider) (*providerUser, error) {
	var nameID *saml.NameID
	if a.Subject != nil {
		nameID = a.Subject.NameID
	}
	sub := ""
	if v := samlAttr(a, samlSubjectID); len(v) > 0 {
		sub = v[0].Value
	} else if nameID != nil && nameID.Value != "" && nameID.Format != string(saml.TransientNameIDFormat) {
		sub = nameID.Value
		if nameID.Format == string(saml.EmailAddressNameIDFormat) {
			sub = strings.ToLower(strings.TrimSpace(sub))
		}
	}
	if sub == "" {
		return nil, badRequest("saml_assertion_no_user_id",
			"SAML Assertion did not contain a persistent Subject Identifier attribute or Subject NameID uniquely identifying this user")
	}
	claims := mapSAMLAttributes(a, p.SAML.AttributeMapping)
	email, _ := claims["email"].(string)
	if email == "" {
		for _, n := range []string{"urn:oid:0.9.2342.19200300.100.1.3", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
			"http://schemas.xmlsoap.org/claims/EmailAddress", "mail", "Mail", "email"} {
			for _, v := range samlAttr(a, n) {
				if email == "" && v.Value != "" {
					email = v.Value
				}
			}
		}
	}
	if email == "" && nameID != nil && nameID.Format == string(saml.EmailAddressNameIDFormat) {
		email = nameID.Value
	}
	if email == "" {
		return nil, badRequest("saml_assertion_no_email", "SAML Assertion does not contain an email address")
	}
	claims["email"] = email
	b, _ := json.Marshal(claims)
	var c providerClaims
	_ = json.Unmarshal(b, &c)
	c.Subject, c.Issuer, c.Email, c.EmailVerified = sub, p.SAML.EntityID, strings.ToLower(email), true
	// What the standard claims did not take stays as custom claims.
	known := c.identityData()
	for k := range known {
		delete(claims, k)
	}
	if len(claims) > 0 {
		c.CustomClaims = claims
	}
	return &providerUser{Claims: c, Emails: []providerEmail{{Email: email, Verified: true, Primary: true}}}, nil
}

// mapSAMLAttributes applies a provider's attribute mapping.
func mapSAMLAttributes(a *saml.Assertion, m samlAttributeMapping) map[string]any {
	out := map[string]any{}
	for key, at := range m.Keys {
		names := at.Names
		if at.Name != "" {
			names = append([]string{at.Name}, names...)
		}
		set := false
		for _, n := range names {
			for _, v := range samlAttr(a, n) {
				if v.Value == "" {
					continue
				}
				set = true
				if !at.Array {
					out[key] = v.Value
					break
				}
				list, _ := out[key].([]string)
				out[key] = append(list, v.Value)
			}
			if set {
				break
			}
		}
		if !set && at.Default != nil {
			out[key] = at.Default
		}
	}
	return out
}

// initSAML makes the service provider certificate at start (see
// samlCertificate).
func (s *Service) initSAML() error {
	if !s.cfg.SAML.Enabled {
		return nil
	}
	cert, err := samlCertificate(s.cfg.SAML.PrivateKey, s.cfg.SAML.ExternalURL, s.cfg.SAML.AllowEncryptedAssertions)
	if err != nil {
		return fmt.Errorf("auth: SAML certificate: %w", err)
	}
	s.samlCert = cert
	return nil
}
