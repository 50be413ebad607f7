package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/oauth2"

	"github.com/basaltdev/basalt/internal/pg"
)

// reservedOAuthParams are authorization request parameters Basalt sets
// itself: an app's query cannot override them (nonce is taken as the
// flow's nonce instead). The last three are Basalt's own and are not
// passed on.
var reservedOAuthParams = []string{"client_id", "client_secret", "redirect_uri", "response_type", "state",
	"code_challenge", "code_challenge_method", "code_verifier", "nonce", "provider", "scopes",
	"redirect_to", "skip_http_redirect", "invite_token"}

// authorizeExternal handles GET /authorize (contract E18): 302 to the
// provider's sign-in page.
func (s *Service) authorizeExternal(w http.ResponseWriter, r *http.Request) error {
	to, err := s.startExternalFlow(r, nil)
	if err != nil {
		return err
	}
	http.Redirect(w, r, to, http.StatusFound)
	return nil
}

// startExternalFlow records a flow_state for a provider sign-in (or, with
// target, for linking a provider to that user) and returns the provider's
// authorization URL. The flow state's id is the OAuth state, as in the
// reference: random, stored server-side, single use and short-lived, so it
// needs no signature.
func (s *Service) startExternalFlow(r *http.Request, target *user) (string, error) {
	ctx := r.Context()
	q := r.URL.Query()
	name := strings.ToLower(q.Get("provider"))
	p, pc, err := s.provider(s.providerCtx(ctx), name, q.Get("scopes"))
	if err != nil {
		return "", &apiError{Status: http.StatusBadRequest, Code: "validation_failed",
			Message: "Unsupported provider: " + err.Error(), Cause: err}
	}
	invite := q.Get("invite_token")
	if invite != "" {
		if err := s.checkInviteToken(ctx, invite); err != nil {
			return "", err
		}
	}
	challenge, method := q.Get("code_challenge"), q.Get("code_challenge_method")
	pkce, err := checkPKCEParams(challenge, method)
	if err != nil {
		return "", err
	}
	referrer := s.redirectTarget(r, "")
	var app, opts []oauth2.AuthCodeOption
	for k, vs := range q {
		if len(vs) > 0 && !slices.Contains(reservedOAuthParams, strings.ToLower(k)) {
			app = append(app, oauth2.SetAuthURLParam(k, vs[0]))
		}
	}
	flowID := newUUID()
	var nonce, clientStateID *string
	if p.usesNonce() {
		n := q.Get("nonce")
		if n == "" {
			n = randomString(24)
		}
		nonce = &n
		opts = append(opts, oauth2.SetAuthURLParam("nonce", n))
	}
	var authCode, challengePtr, methodPtr *string
	if pkce {
		code, m := newUUID(), strings.ToLower(method)
		authCode, challengePtr, methodPtr = &code, &challenge, &m
	}
	var targetID *string
	if target != nil {
		targetID = &target.ID
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		now := s.now()
		if err := sweepFlows(ctx, tx, now); err != nil {
			return err
		}
		if p.requiresPKCE() {
			// PKCE between Basalt and the provider: the verifier stays here.
			verifier, id := oauth2.GenerateVerifier(), newUUID()
			if _, err := tx.Exec(ctx, `INSERT INTO auth.oauth_client_states (id, provider_type, code_verifier, created_at)
				VALUES ($1, $2, $3, $4)`, id, name, verifier, now); err != nil {
				return fmt.Errorf("store provider code verifier: %w", err)
			}
			clientStateID = &id
			opts = append(opts, oauth2.S256ChallengeOption(verifier))
		}
		_, err := tx.Exec(ctx, `INSERT INTO auth.flow_state (id, auth_code, code_challenge_method, code_challenge,
			provider_type, authentication_method, created_at, updated_at, referrer, linking_target_id,
			oauth_client_state_id, email_optional, provider_nonce, invite_token)
			VALUES ($1, $2, $3, $4, $5, 'oauth', $6, $6, $7, $8, $9, $10, $11, nullif($12, ''))`,
			flowID, authCode, methodPtr, challengePtr, name, now, referrer, targetID, clientStateID, pc.EmailOptional, nonce, invite)
		if err != nil {
			return fmt.Errorf("create flow state: %w", err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	s.log.InfoContext(ctx, "redirecting to external provider", "provider", name)
	return p.authCodeURL(flowID, app, opts...), nil
}

// sweepFlows deletes a batch of flows abandoned more than a day ago (the
// user never came back from the provider), and their provider verifiers,
// as the reference's cleanup does; each new flow pays for a few.
func sweepFlows(ctx context.Context, tx pgx.Tx, now time.Time) error {
	day := now.Add(-24 * time.Hour)
	for _, q := range []string{
		`DELETE FROM auth.flow_state WHERE id IN (SELECT id FROM auth.flow_state WHERE created_at < $1 LIMIT 100 FOR UPDATE SKIP LOCKED)`,
		`DELETE FROM auth.oauth_client_states WHERE id IN (SELECT id FROM auth.oauth_client_states WHERE created_at < $1 LIMIT 100 FOR UPDATE SKIP LOCKED)`,
	} {
		if _, err := tx.Exec(ctx, q, day); err != nil {
			return fmt.Errorf("sweep abandoned flows: %w", err)
		}
	}
	return nil
}

// providerCtx makes golang.org/x/oauth2 and go-oidc use the service's
// HTTP client for calls to providers.
func (s *Service) providerCtx(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, s.httpClient)
}

// randomString returns n random bytes, base64url-encoded.
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// externalFlow is a flow_state row of a provider sign-in.
type externalFlow struct {
	ID            string
	Provider      string
	AuthCode      *string
	Challenge     *string
	Referrer      string
	CreatedAt     time.Time
	UserID        *string
	LinkTarget    *string
	ClientStateID *string
	EmailOptional bool
	Nonce         string
	// InviteToken is the invitation a sign-in accepts (invite_token).
	InviteToken string
}

// pkce reports whether the flow ends with an auth code for the app to
// exchange (the app sent a code challenge) rather than a session in the URL.
func (f *externalFlow) pkce() bool { return f.Challenge != nil && *f.Challenge != "" }

const externalFlowColumns = `id, provider_type, auth_code, code_challenge, coalesce(referrer, ''),
	coalesce(created_at, now()), user_id, linking_target_id, oauth_client_state_id, email_optional, coalesce(provider_nonce, ''),
	coalesce(invite_token, '')`

func scanExternalFlow(row pgx.Row) (*externalFlow, error) {
	f := &externalFlow{}
	err := row.Scan(&f.ID, &f.Provider, &f.AuthCode, &f.Challenge, &f.Referrer, &f.CreatedAt, &f.UserID,
		&f.LinkTarget, &f.ClientStateID, &f.EmailOptional, &f.Nonce, &f.InviteToken)
	return f, err
}

// loadExternalFlow finds the flow of a callback's state, with the
// reference's errors for a missing, malformed, unknown, expired or
// already used state.
func (s *Service) loadExternalFlow(ctx context.Context, db pg.DB, state string, lock bool) (*externalFlow, error) {
	if state == "" {
		return nil, badRequest("bad_oauth_callback", "OAuth state parameter missing")
	}
	if !isUUID(state) {
		return nil, badRequest("bad_oauth_state", "OAuth state parameter is invalid")
	}
	q := `SELECT ` + externalFlowColumns + ` FROM auth.flow_state WHERE id = $1 AND authentication_method = 'oauth'`
	if lock {
		q += ` FOR UPDATE`
	}
	f, err := scanExternalFlow(db.QueryRow(ctx, q, state))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, badRequest("bad_oauth_state", "OAuth state not found or expired")
	}
	if err != nil {
		return nil, fmt.Errorf("load flow state: %w", err)
	}
	if s.now().After(f.CreatedAt.Add(s.cfg.FlowStateExpiry)) {
		return nil, badRequest("bad_oauth_state", "OAuth state has expired")
	}
	// A PKCE flow gets its user at the callback: one already set means the
	// state was used before.
	if f.pkce() && f.UserID != nil {
		return nil, badRequest("flow_state_already_used", "State has already been used")
	}
	return f, nil
}

// callbackParams are the provider's answer: query parameters, or form
// fields when the provider posts back (Apple's form_post).
func callbackParams(r *http.Request) url.Values {
	if r.Method == http.MethodPost {
		if err := r.ParseForm(); err == nil {
			return r.Form
		}
	}
	return r.URL.Query()
}

// externalCallback handles GET and POST /callback (contract E19). Every
// outcome is a redirect: an unusable state goes back to the site URL
// (303), anything after that to the flow's redirect target (302), with
// the error in the query and the fragment as the reference writes it.
func (s *Service) externalCallback(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	params := callbackParams(r)
	f, err := s.loadExternalFlow(ctx, s.db, params.Get("state"), false)
	if err != nil {
		site, perr := url.Parse(s.cfg.SiteURL)
		if perr != nil {
			return internalErr(perr)
		}
		site.RawQuery = s.errorParams(ctx, err, site.Query()).Encode()
		http.Redirect(w, r, site.String(), http.StatusSeeOther)
		return nil
	}
	target := orDefault(f.Referrer, s.cfg.SiteURL)
	to, err := s.finishExternalFlow(r, f, params, target)
	if err != nil {
		u, perr := url.Parse(target)
		if perr != nil {
			return internalErr(perr)
		}
		q := s.errorParams(ctx, err, u.Query())
		u.RawQuery = q.Encode()
		frag := url.Values{"sb": {""}}
		for _, k := range []string{"error", "error_code", "error_description"} {
			if v := q.Get(k); v != "" {
				frag.Set(k, v)
			}
		}
		u.Fragment = ""
		to = u.String() + "#" + frag.Encode()
	}
	http.Redirect(w, r, to, http.StatusFound)
	return nil
}

// errorParams adds error, error_code and error_description to q for err
// as the reference maps them: sign-ups refused, bans and unverified
// provider addresses are access_denied, other errors follow their status;
// a provider's own OAuth error passes through as it came.
func (s *Service) errorParams(ctx context.Context, err error, q url.Values) url.Values {
	var oe *oauthError
	if errors.As(err, &oe) {
		q.Set("error", oe.Err)
		q.Set("error_description", oe.Description)
		return q
	}
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = internalErr(err)
	}
	if ae.Status >= 500 {
		s.log.ErrorContext(ctx, "external provider callback failed", "err", err)
	}
	switch ae.Code {
	case "signup_disabled", "user_banned", "provider_email_needs_verification":
		q.Set("error", "access_denied")
	default:
		q.Set("error", oauthErrorFor(ae.Status))
	}
	q.Set("error_code", ae.Code)
	q.Set("error_description", ae.Message)
	return q
}

// finishExternalFlow completes a sign-in (or link) from the provider's
// answer and returns where the browser goes next.
func (s *Service) finishExternalFlow(r *http.Request, f *externalFlow, params url.Values, target string) (string, error) {
	if e := params.Get("error"); e != "" {
		return "", &oauthError{Err: e, Description: params.Get("error_description")}
	}
	code := params.Get("code")
	if code == "" {
		return "", badRequest("bad_oauth_callback", "OAuth callback with missing authorization code missing")
	}
	ctx := s.providerCtx(r.Context())
	p, pc, err := s.provider(ctx, f.Provider, "")
	if err != nil {
		return "", &apiError{Status: http.StatusBadRequest, Code: "oauth_provider_not_supported",
			Message: "Unsupported provider: " + err.Error(), Cause: err}
	}
	var opts []oauth2.AuthCodeOption
	if f.ClientStateID != nil || p.requiresPKCE() {
		verifier, err := s.takeClientState(ctx, f)
		if err != nil {
			return "", err
		}
		opts = append(opts, oauth2.VerifierOption(verifier))
	}
	tok, err := p.exchange(ctx, code, opts...)
	if err != nil {
		return "", &apiError{Status: http.StatusInternalServerError, Code: "unexpected_failure",
			Message: "Unable to exchange external code: " + code[:min(4, len(code))], Cause: err}
	}
	pu, err := p.userData(ctx, tok, f.Nonce)
	if err != nil {
		return "", &apiError{Status: http.StatusInternalServerError, Code: "unexpected_failure",
			Message: "Error getting user profile from external provider", Cause: err}
	}
	if bp, ok := builtins[f.Provider]; ok && bp.callback != nil {
		bp.callback(params, pu)
	}
	emailOptional := f.EmailOptional || pc.EmailOptional
	if len(pu.Emails) == 0 && !emailOptional {
		return "", &apiError{Status: http.StatusInternalServerError, Code: "unexpected_failure",
			Message: "Error getting user email from external provider"}
	}
	pu.primaryEmail()
	var resp *tokenResponse
	err = s.inTxCommitting(r.Context(), func(tx pgx.Tx) error {
		// Locked, and checked again: two callbacks racing on one state
		// yield one session (or one auth code) at most.
		lf, err := s.loadExternalFlow(ctx, tx, f.ID, true)
		if err != nil {
			return err
		}
		var u *user
		switch {
		case lf.LinkTarget != nil:
			u, err = s.linkExternalToTarget(ctx, tx, r, *lf.LinkTarget, pu, f.Provider, target)
		case lf.InviteToken != "":
			u, err = s.acceptInvite(ctx, tx, r, pu, f.Provider, lf.InviteToken)
		default:
			u, err = s.externalSignIn(ctx, tx, r, pu, f.Provider, emailOptional, target)
		}
		if err != nil {
			return err
		}
		if lf.pkce() {
			_, err := tx.Exec(ctx, `UPDATE auth.flow_state SET user_id = $2, provider_access_token = $3,
				provider_refresh_token = $4, auth_code_issued_at = $5, updated_at = $5 WHERE id = $1`,
				lf.ID, u.ID, tok.AccessToken, tok.RefreshToken, s.now())
			return err
		}
		if resp, err = s.issueSession(ctx, tx, r, u, "oauth"); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM auth.flow_state WHERE id = $1`, lf.ID)
		return err
	})
	if err != nil {
		return "", err
	}
	if f.pkce() {
		return addQuery(target, url.Values{"code": {*f.AuthCode}}), nil
	}
	return tokenFragment(target, resp, tok), nil
}

// tokenFragment is target with the session in its fragment (the implicit
// flow's answer), and the provider's tokens when there are any.
func tokenFragment(target string, resp *tokenResponse, tok *oauth2.Token) string {
	frag := url.Values{"access_token": {resp.AccessToken}, "token_type": {"bearer"},
		"expires_in": {strconv.Itoa(resp.ExpiresIn)}, "expires_at": {strconv.FormatInt(resp.ExpiresAt, 10)},
		"refresh_token": {resp.RefreshToken}, "sb": {""}}
	if tok != nil {
		frag.Set("provider_token", tok.AccessToken)
		if tok.RefreshToken != "" {
			frag.Set("provider_refresh_token", tok.RefreshToken)
		}
	}
	return target + "#" + frag.Encode()
}

// takeClientState consumes the provider-side PKCE verifier of a flow.
func (s *Service) takeClientState(ctx context.Context, f *externalFlow) (string, error) {
	if f.ClientStateID == nil {
		return "", badRequest("oauth_invalid_state", "OAuth PKCE code verifier missing")
	}
	var provider, verifier string
	var created time.Time
	err := s.db.QueryRow(ctx, `DELETE FROM auth.oauth_client_states WHERE id = $1
		RETURNING provider_type, coalesce(code_verifier, ''), created_at`, *f.ClientStateID).Scan(&provider, &verifier, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", unprocessable("oauth_client_state_not_found", "OAuth state not found")
	}
	if err != nil {
		return "", fmt.Errorf("load provider code verifier: %w", err)
	}
	if provider != f.Provider {
		return "", badRequest("oauth_invalid_state", "OAuth provider mismatch")
	}
	if s.now().After(created.Add(s.cfg.FlowStateExpiry)) {
		return "", unprocessable("oauth_client_state_expired", "OAuth state expired")
	}
	return verifier, nil
}

// commitErr is an error a transaction reports after committing: the
// reference's CommitWithError, for refusals that still leave a trace
// (an unverified provider address gets its user and confirmation mail).
type commitErr struct{ err error }

func (c *commitErr) Error() string { return c.err.Error() }

// inTxCommitting is inTx, except that fn returning a *commitErr commits
// and then returns the wrapped error.
func (s *Service) inTxCommitting(ctx context.Context, fn func(pgx.Tx) error) error {
	var after error
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		err := fn(tx)
		var ce *commitErr
		if errors.As(err, &ce) {
			after = ce.err
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	return after
}
