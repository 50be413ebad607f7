package auth

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/jwt"
	gojwt "github.com/golang-jwt/jwt/v5"
)

func TestGetUserAuthorization(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	s := e.signUp("g@example.com", "secret123")
	at := s["access_token"].(string)
	r := e.req("GET", "/user", nil, at)
	if r.Status != 200 || r.json(t)["email"] != "g@example.com" {
		t.Fatalf("get user %d %s", r.Status, r.Body)
	}
	wantErr(t, e.req("GET", "/user", nil, ""), 401, "no_authorization", "This endpoint requires a valid Bearer token")
	wantErr(t, e.req("GET", "/user", nil, e.keys.AnonKey), 403, "bad_jwt", "invalid claim: missing sub claim")
	wantErr(t, e.req("GET", "/user", nil, at[:len(at)-4]+"AAAA"), 403, "bad_jwt", "")
	nonUUID, _ := e.keys.SignHS256(gojwt.MapClaims{"sub": "1234567890", "role": "authenticated"})
	wantErr(t, e.req("GET", "/user", nil, nonUUID), 400, "bad_jwt", "")
	// Expiry with the injected clock.
	e.clock.add(time.Hour + 2*time.Minute)
	r = e.req("GET", "/user", nil, at)
	wantErr(t, r, 403, "bad_jwt", "")
	if !strings.HasPrefix(r.json(t)["message"].(string), "invalid JWT: unable to parse or verify signature, ") ||
		!strings.Contains(r.json(t)["message"].(string), "expired") {
		t.Fatalf("message = %v", r.json(t)["message"])
	}
	e.clock.add(-time.Hour - 2*time.Minute)
	// Audience mismatch.
	wrongAud, _ := e.keys.Sign(gojwt.MapClaims{"sub": s["user"].(map[string]any)["id"], "aud": "other", "role": "authenticated"})
	wantErr(t, e.req("GET", "/user", nil, wrongAud), 400, "validation_failed", "Token audience doesn't match request audience")
	// A deleted user's token.
	e.exec(`DELETE FROM auth.users`)
	wantErr(t, e.req("GET", "/user", nil, at), 403, "user_not_found", "User from sub claim in JWT does not exist")
}

func TestUpdateUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	s := e.signUp("u@example.com", "secret123")
	at := s["access_token"].(string)
	other := e.req("POST", "/token?grant_type=password", `{"email":"u@example.com","password":"secret123"}`, "").json(t)
	if r := e.req("PUT", "/user", map[string]any{"data": map[string]any{"a": 1, "b": "x"}}, at); r.Status != 200 {
		t.Fatalf("set metadata %d %s", r.Status, r.Body)
	}
	r := e.req("PUT", "/user", map[string]any{"data": map[string]any{"a": nil, "c": true}}, at)
	md := r.json(t)["user_metadata"].(map[string]any)
	if r.Status != 200 || md["a"] != nil || md["b"] != "x" || md["c"] != true {
		t.Fatalf("metadata merge: %d %s", r.Status, r.Body)
	}
	wantErr(t, e.req("PUT", "/user", map[string]any{"app_metadata": map[string]any{"x": 1}}, at), 403, "not_admin", "Updating app_metadata requires admin privileges")
	wantErr(t, e.req("PUT", "/user", map[string]any{"password": "secret123"}, at), 422, "same_password", "New password should be different from the old password.")
	wantErr(t, e.req("PUT", "/user", map[string]any{"password": "abc"}, at), 422, "weak_password", "Password should be at least 6 characters.")
	if r := e.req("PUT", "/user", map[string]any{"password": "new-secret"}, at); r.Status != 200 {
		t.Fatalf("change password %d %s", r.Status, r.Body)
	}
	// The other session was signed out; this one lives.
	wantErr(t, e.req("GET", "/user", nil, other["access_token"].(string)), 403, "session_not_found", "")
	wantErr(t, e.refresh(other["refresh_token"].(string)), 400, "refresh_token_not_found", "")
	if r := e.req("GET", "/user", nil, at); r.Status != 200 {
		t.Fatal(r.Status)
	}
	if r := e.req("POST", "/token?grant_type=password", `{"email":"u@example.com","password":"new-secret"}`, ""); r.Status != 200 {
		t.Fatalf("new password sign-in %d", r.Status)
	}
	// Email already taken.
	e.signUp("taken@example.com", "secret123")
	wantErr(t, e.req("PUT", "/user", map[string]any{"email": "taken@example.com"}, at), 422, "email_exists", "A user with this email address has already been registered")
}

// Secure email change: one code to each address, both must be confirmed.
func TestUpdateUserEmailChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	at := e.signUp("old@example.com", "secret123")["access_token"].(string)
	r := e.req("PUT", "/user", map[string]any{"email": "new@example.com"}, at)
	u := r.json(t)
	if r.Status != 200 || u["email"] != "old@example.com" || u["new_email"] != "new@example.com" || u["email_change_sent_at"] == nil {
		t.Fatalf("email change %d %s", r.Status, r.Body)
	}
	toNew, toOld := e.mails("new@example.com"), e.mails("old@example.com")
	if len(toNew) != 1 || len(toOld) != 1 {
		t.Fatalf("mails new=%d old=%d", len(toNew), len(toOld))
	}
	first := e.req("POST", "/verify", map[string]any{"type": "email_change", "email": "old@example.com", "token": toOld[0].Token}, "")
	if first.Status != 200 || first.json(t)["msg"] != emailChangeMessage || first.json(t)["code"] != "200" {
		t.Fatalf("first half %d %s", first.Status, first.Body)
	}
	// GET link form of the second half.
	w := httptest.NewRecorder()
	e.svc.ServeHTTP(w, httptest.NewRequest("GET", strings.TrimPrefix(toNew[0].Link, "http://api.test/auth/v1"), nil))
	loc := w.Header().Get("Location")
	if w.Code != 303 || !strings.HasPrefix(loc, "http://localhost:3000#access_token=") || !strings.Contains(loc, "&type=email_change") {
		t.Fatalf("second half %d %s", w.Code, loc)
	}
	if got := e.req("GET", "/user", nil, at).json(t)["email"]; got != "new@example.com" {
		t.Fatalf("email = %v", got)
	}
}

// The change's codes are retired with it: when that fails, the change
// fails (nothing is changed) and the log names the step that failed.
func TestEmailChangeFailsWhenItsCodesCannotBeRetired(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	e := newEnv(t, autoconfirm, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	at := e.signUp("keep@example.com", "secret123")["access_token"].(string)
	if r := e.req("PUT", "/user", map[string]any{"email": "moved@example.com"}, at); r.Status != 200 {
		t.Fatalf("email change %d %s", r.Status, r.Body)
	}
	toNew, toOld := e.mails("moved@example.com"), e.mails("keep@example.com")
	if r := e.req("POST", "/verify", map[string]any{"type": "email_change", "email": "keep@example.com", "token": toOld[0].Token}, ""); r.Status != 200 {
		t.Fatalf("first half %d %s", r.Status, r.Body)
	}
	// Only the statement that retires both kinds of code is refused.
	if _, err := e.db.Admin.Exec(t.Context(), `
		CREATE FUNCTION pg_temp.keep_codes() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
		  IF current_query() LIKE '%email_change_token_new%email_change_token_current%' THEN
		    RAISE EXCEPTION 'codes are kept';
		  END IF;
		  RETURN NULL;
		END $$;
		CREATE TRIGGER keep_codes BEFORE DELETE ON auth.one_time_tokens FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.keep_codes();`); err != nil {
		t.Fatal(err)
	}
	r := e.req("POST", "/verify", map[string]any{"type": "email_change", "email": "moved@example.com", "token": toNew[0].Token}, "")
	if r.Status != 500 {
		t.Fatalf("second half %d %s", r.Status, r.Body)
	}
	if got := e.req("GET", "/user", nil, at).json(t)["email"]; got != "keep@example.com" {
		t.Fatalf("email = %v, want it unchanged", got)
	}
	if !strings.Contains(logs.String(), "retire the email-change codes") {
		t.Fatalf("the log does not name the failed step:\n%s", logs.String())
	}
}

// Behind the gateway the token was verified already: the stored result is
// used (a token the gateway rejected is a bad_jwt here too).
func TestGatewayVerifiedCaller(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	at := e.signUp("gw@example.com", "secret123")["access_token"].(string)
	claims, err := e.keys.Verify(at, e.clock.now())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		caller *jwt.Caller
		status int
	}{
		{"verified", &jwt.Caller{Token: at, Claims: claims}, 200},
		{"rejected", &jwt.Caller{Token: at, Err: fmt.Errorf("%w: token has invalid claims: token is expired", jwt.ErrExpired)}, 403},
	} {
		r := httptest.NewRequest("GET", "/user", nil)
		r.Header.Set("Authorization", "Bearer "+at)
		r.Header.Set(apiVersionHeader, "2024-01-01")
		w := httptest.NewRecorder()
		e.svc.ServeHTTP(w, r.WithContext(jwt.NewContext(r.Context(), tc.caller)))
		if w.Code != tc.status {
			t.Fatalf("%s: %d %s", tc.name, w.Code, w.Body)
		}
		if tc.status == 403 && !strings.Contains(w.Body.String(), `"message":"invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired"`) {
			t.Fatalf("%s: %s", tc.name, w.Body)
		}
	}
}

// lockedBuffer is a log sink the service may write to from any goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
