package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/jwt"
)

// idTokenParams is the body of grant_type=id_token (signInWithIdToken,
// and linkIdentity with a token).
type idTokenParams struct {
	IDToken      string `json:"id_token"`
	AccessToken  string `json:"access_token"`
	Nonce        string `json:"nonce"`
	Provider     string `json:"provider"`
	ClientID     string `json:"client_id"`
	Issuer       string `json:"issuer"`
	LinkIdentity bool   `json:"link_identity"`
}

// badIDToken is the reference's answer for a token that does not verify.
func badIDToken(cause error) error {
	return &oauthError{Err: "invalid request", Description: "Bad ID token", cause: cause}
}

// idTokenIssuer is what the grant accepts for a provider: the issuer
// (several for Apple), the audiences, and the provider's settings.
type idTokenIssuer struct {
	provider  string
	issuers   []string
	audiences []string
	cfg       ProviderConfig
	// discoverAt, when set, is where the provider's keys are discovered
	// for tokens of several issuers; the issuer is then checked against
	// issuers instead of the discovered one.
	discoverAt string
}

// idTokenIssuerFor picks the provider an ID token is for, with the
// reference's errors (contract E5).
func (s *Service) idTokenIssuerFor(ctx context.Context, p idTokenParams) (*idTokenIssuer, error) {
	cfgOf := func(name string) ProviderConfig { return s.cfg.External[name] }
	unverified, _ := jwt.ParseUnverified(p.IDToken)
	tokenIssuer := ""
	if unverified != nil {
		tokenIssuer, _ = unverified.Map["iss"].(string)
	}
	for _, bp := range idTokenProviders() {
		rule, pc := bp.idToken, cfgOf(bp.name)
		issuers := rule.issuers(pc)
		if p.Provider != bp.name && (p.Issuer == "" || !slices.Contains(issuers, p.Issuer)) {
			continue
		}
		out := idTokenIssuer{provider: bp.name, issuers: issuers, audiences: pc.ClientIDs, cfg: pc}
		if rule.checkIssuer != nil {
			if err := rule.checkIssuer(p, tokenIssuer, unverified != nil, issuers); err != nil {
				return nil, err
			}
			out.issuers = []string{tokenIssuer}
		}
		if len(issuers) > 1 {
			// One discovery document serves every issuer (Apple's).
			out.discoverAt = issuers[0]
		}
		if rule.skipNonce {
			out.cfg.SkipNonceCheck = true
		}
		if rule.iosAudience {
			out.audiences = append(slices.Clone(pc.ClientIDs), s.cfg.IOSBundleID)
		}
		if !out.cfg.Enabled {
			return nil, badRequest("provider_disabled", "Provider (issuer %q) is not enabled", out.issuers[0])
		}
		return &out, nil
	}
	if strings.HasPrefix(p.Provider, customPrefix) {
		c, ok := s.cfg.External[p.Provider]
		if !ok {
			return s.storedIDTokenIssuer(ctx, p.Provider)
		}
		if !c.Enabled {
			return nil, badRequest("provider_disabled", "Custom provider %q is disabled", p.Provider)
		}
		return &idTokenIssuer{provider: p.Provider, issuers: []string{c.Issuer}, audiences: c.ClientIDs, cfg: c}, nil
	}
	// The deprecated form: any issuer the operator allowed, with the
	// client id the request names.
	if p.Issuer == "" || !slices.Contains(s.cfg.AllowedIDTokenIssuers, p.Issuer) {
		return nil, badRequest("validation_failed", "Custom OIDC provider %q not allowed", p.Provider)
	}
	return &idTokenIssuer{provider: p.Issuer, issuers: []string{p.Issuer}, audiences: []string{p.ClientID},
		cfg: ProviderConfig{Enabled: true}}, nil
}

// tokenIDToken handles grant_type=id_token (contract E5): an ID token the
// app got from the provider itself (native sign-in) is verified against
// the provider's published keys (signature, issuer, expiry), its audience
// against the configured client ids and its nonce against the SHA-256 of
// the one the app sends, then signs in, or links to the caller's account.
// A token is accepted once.
func (s *Service) tokenIDToken(w http.ResponseWriter, r *http.Request) error {
	var p idTokenParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.IDToken == "" {
		return &oauthError{Err: "invalid request", Description: "id_token required"}
	}
	if p.Provider == "" && (p.ClientID == "" || p.Issuer == "") {
		return &oauthError{Err: "invalid request", Description: "provider or client_id and issuer required"}
	}
	var target *user
	if p.LinkIdentity {
		if r.Header.Get("Authorization") == "" {
			return &oauthError{Err: "invalid request", Description: "Linking requires a valid user access token in Authorization"}
		}
		a, err := s.authenticate(r)
		if err != nil {
			return err
		}
		target = a.user
	}
	iss, err := s.idTokenIssuerFor(r.Context(), p)
	if err != nil {
		return err
	}
	ctx := s.providerCtx(r.Context())
	tok, pu, err := s.verifyGrantToken(ctx, iss, p)
	if err != nil {
		return err
	}
	pu.primaryEmail()
	var resp *tokenResponse
	err = s.inTxCommitting(r.Context(), func(tx pgx.Tx) error {
		if err := s.claimIDToken(ctx, tx, p.IDToken, tok.Expiry); err != nil {
			return err
		}
		var u *user
		var err error
		if target != nil {
			u, err = s.linkIdentityToUser(ctx, tx, r, target, pu, iss.provider, s.cfg.SiteURL)
		} else {
			u, err = s.externalSignIn(ctx, tx, r, pu, iss.provider, iss.cfg.EmailOptional, s.cfg.SiteURL)
		}
		if err != nil {
			return err
		}
		resp, err = s.issueSession(ctx, tx, r, u, "oauth")
		return err
	})
	if err != nil {
		var ae *apiError
		var oe *oauthError
		if errors.As(err, &oe) || errors.As(err, &ae) && ae.Status < 500 {
			return err
		}
		return &oauthError{Err: "server_error", Description: "Internal Server Error", cause: err}
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// verifyGrantToken verifies the grant's ID token for iss and reads its user.
func (s *Service) verifyGrantToken(ctx context.Context, iss *idTokenIssuer, p idTokenParams) (*oidc.IDToken, *providerUser, error) {
	// Apple publishes one discovery document for its two issuers.
	discoverAt, skipIssuer := iss.issuers[0], false
	if iss.discoverAt != "" {
		discoverAt, skipIssuer = iss.discoverAt, true
	}
	op, err := s.oidc.get(ctx, discoverAt, iss.cfg.DiscoveryURL)
	if err != nil {
		return nil, nil, internalErr(err)
	}
	tok, pu, err := s.verifyIDToken(ctx, op, p.IDToken, skipIssuer, iss.provider)
	if err != nil {
		return nil, nil, badIDToken(err)
	}
	if skipIssuer && !slices.Contains(iss.issuers, tok.Issuer) {
		return nil, nil, badIDToken(fmt.Errorf("issuer %q", tok.Issuer))
	}
	if p.AccessToken != "" && tok.AccessTokenHash != "" {
		if err := tok.VerifyAccessToken(p.AccessToken); err != nil {
			return nil, nil, badIDToken(err)
		}
	}
	if tok.Subject == "" {
		return nil, nil, &oauthError{Err: "invalid request", Description: "Missing sub claim in id_token"}
	}
	if !containsAny(tok.Audience, iss.audiences) {
		return nil, nil, &oauthError{Err: "invalid request", Description: fmt.Sprintf("Unacceptable audience in id_token: %v", tok.Audience)}
	}
	if !iss.cfg.SkipNonceCheck {
		if (tok.Nonce != "") != (p.Nonce != "") {
			return nil, nil, &oauthError{Err: "invalid request", Description: "Passed nonce and nonce in id_token should either both exist or not."}
		}
		// The app hands the provider the SHA-256 of its nonce and keeps the
		// nonce itself, so a token lifted from elsewhere is useless without it.
		if sum := sha256.Sum256([]byte(p.Nonce)); p.Nonce != "" && hex.EncodeToString(sum[:]) != tok.Nonce {
			return nil, nil, &oauthError{Err: "invalid nonce", Description: "Nonces mismatch"}
		}
	}
	return tok, pu, nil
}

// claimIDToken records a token as used until it expires; a token seen
// before is refused, so a captured token cannot sign in again.
func (s *Service) claimIDToken(ctx context.Context, tx pgx.Tx, raw string, exp time.Time) error {
	sum := sha256.Sum256([]byte(raw))
	now := s.now()
	if _, err := tx.Exec(ctx, `DELETE FROM auth.id_token_uses WHERE token_hash IN (SELECT token_hash FROM auth.id_token_uses
		WHERE expires_at < $1 LIMIT 100 FOR UPDATE SKIP LOCKED)`, now); err != nil {
		return fmt.Errorf("forget expired id tokens: %w", err)
	}
	tag, err := tx.Exec(ctx, `INSERT INTO auth.id_token_uses (token_hash, expires_at) VALUES ($1, $2)
		ON CONFLICT (token_hash) DO NOTHING`, hex.EncodeToString(sum[:]), exp)
	if err != nil {
		return fmt.Errorf("record id token: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return &oauthError{Err: "invalid request", Description: "ID token has already been used"}
	}
	return nil
}
