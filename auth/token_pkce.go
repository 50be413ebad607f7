package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/lazy"
)

// codeChallengeRE is RFC 7636's code challenge alphabet and length, as the
// reference checks it (a verifier shorter than 43 characters would be
// guessable).
var codeChallengeRE = lazy.NewRegexp(`^[A-Za-z0-9._~-]{43,128}$`)

// checkPKCEParams validates the PKCE pair of a request and reports whether
// the client is using PKCE.
func checkPKCEParams(challenge, method string) (bool, error) {
	if challenge == "" && method == "" {
		return false, nil
	}
	if challenge == "" || method == "" {
		return false, badRequest("validation_failed", "PKCE flow requires code_challenge_method and code_challenge")
	}
	// auth-js always sends s256; plain is accepted because the reference
	// and RFC 7636 allow it, in any case.
	if m := strings.ToLower(method); m != "s256" && m != "plain" {
		return false, badRequest("validation_failed", "code challenge method not supported")
	}
	if !codeChallengeRE.MatchString(challenge) {
		return false, badRequest("validation_failed", "code challenge has to be between 43 and 128 characters, and only contain alphanumeric, '-', '.', '_' and '~' characters")
	}
	return true, nil
}

// createFlowState starts a PKCE flow for an email link; GET /verify later
// issues its auth code. The auth code is random from the start but useless
// until issued: it is only handed out in the redirect after the link was
// followed, and the exchange needs the verifier, which never left the
// browser that started the flow.
func (s *Service) createFlowState(ctx context.Context, tx pgx.Tx, userID, challenge, method, providerType, authMethod string) error {
	now := s.now()
	_, err := tx.Exec(ctx, `INSERT INTO auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge,
		provider_type, authentication_method, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
		newUUID(), userID, newUUID(), strings.ToLower(method), challenge, providerType, authMethod, now)
	if err != nil {
		return fmt.Errorf("create flow state for %s: %w", userID, err)
	}
	return nil
}

// issueAuthCode stamps the newest flow state of the user for authMethod and
// returns its auth code (the ?code= of the redirect). Older flows of the
// same kind are left to expire: only the latest request's browser can
// finish, as with the reference.
func (s *Service) issueAuthCode(ctx context.Context, tx pgx.Tx, userID, authMethod string) (string, error) {
	var code string
	err := tx.QueryRow(ctx, `UPDATE auth.flow_state SET auth_code_issued_at = $3, updated_at = $3
		WHERE id = (SELECT id FROM auth.flow_state WHERE user_id = $1 AND authentication_method = $2
		ORDER BY created_at DESC LIMIT 1) RETURNING auth_code`, userID, authMethod, s.now()).Scan(&code)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", unprocessable("flow_state_not_found", "invalid flow state, no valid flow state found")
	}
	if err != nil {
		return "", fmt.Errorf("issue auth code for %s: %w", userID, err)
	}
	return code, nil
}

// pkceParams is the body of POST /token?grant_type=pkce.
type pkceParams struct {
	AuthCode     string `json:"auth_code"`
	CodeVerifier string `json:"code_verifier"`
}

// tokenPKCE handles POST /token?grant_type=pkce (contract E4).
func (s *Service) tokenPKCE(w http.ResponseWriter, r *http.Request) error {
	var p pkceParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.AuthCode == "" || p.CodeVerifier == "" {
		return badRequest("validation_failed", "invalid request: both auth code and code verifier should be non-empty")
	}
	ctx := r.Context()
	var resp *tokenResponse
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var id, method, challenge, authMethod, providerToken, providerRefresh string
		var userID *string
		var created time.Time
		var issued *time.Time
		// Locked, so two exchanges of one code take turns and the second
		// finds the flow deleted: a code yields one session at most.
		err := tx.QueryRow(ctx, `SELECT id, user_id, coalesce(code_challenge_method::text, ''), coalesce(code_challenge, ''),
			authentication_method, coalesce(created_at, now()), auth_code_issued_at,
			coalesce(provider_access_token, ''), coalesce(provider_refresh_token, '')
			FROM auth.flow_state WHERE auth_code = $1 FOR UPDATE`, p.AuthCode).
			Scan(&id, &userID, &method, &challenge, &authMethod, &created, &issued, &providerToken, &providerRefresh)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && userID == nil) {
			return notFound("flow_state_not_found", "invalid flow state, no valid flow state found")
		}
		if err != nil {
			return fmt.Errorf("load flow state: %w", err)
		}
		start := created
		if issued != nil {
			start = *issued
		}
		// The code lives from its issue (the link click), not from the flow's
		// start, so slow mail does not eat the exchange window.
		if s.now().After(start.Add(s.cfg.FlowStateExpiry)) {
			return unprocessable("flow_state_expired", "invalid flow state, flow state has expired")
		}
		if !verifierMatches(method, challenge, p.CodeVerifier) {
			return badRequest("bad_code_verifier", "code challenge does not match previously saved code verifier")
		}
		u, err := userByID(ctx, tx, *userID)
		if err != nil {
			return fmt.Errorf("load user of flow state: %w", err)
		}
		if u.isBanned(s.now()) {
			return badRequest("user_banned", "User is banned")
		}
		// The amr is the flow's method (magiclink, recovery, email/signup, …).
		if resp, err = s.issueSession(ctx, tx, r, u, authMethod); err != nil {
			return err
		}
		// A provider sign-in hands the app the provider's own tokens too.
		resp.ProviderToken, resp.ProviderRefreshToken = providerToken, providerRefresh
		// Single use: the flow is gone once exchanged.
		_, err = tx.Exec(ctx, `DELETE FROM auth.flow_state WHERE id = $1`, id)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// verifierMatches checks a code verifier against the stored challenge
// (RFC 7636 section 4.6), in constant time so timing reveals nothing about
// the challenge.
func verifierMatches(method, challenge, verifier string) bool {
	switch strings.ToLower(method) {
	case "s256":
		sum := sha256.Sum256([]byte(verifier))
		return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
	case "plain":
		return subtle.ConstantTimeCompare([]byte(verifier), []byte(challenge)) == 1
	}
	return false
}
