package auth

import (
	"context"
	"strings"
	"testing"

	gojwt "github.com/golang-jwt/jwt/v5"
)

func TestSignupAutoconfirmReturnsSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	r := e.req("POST", "/signup", map[string]any{"email": "Ann@Example.com", "password": "secret123",
		"data": map[string]any{"role": "artist"}, "code_challenge": nil, "gotrue_meta_security": map[string]any{}}, "")
	if r.Status != 200 {
		t.Fatalf("status %d %s", r.Status, r.Body)
	}
	m := r.json(t)
	if m["token_type"] != "bearer" || m["expires_in"].(float64) != 3600 || len(m["refresh_token"].(string)) != 12 {
		t.Fatalf("session = %s", r.Body)
	}
	u := m["user"].(map[string]any)
	if u["email"] != "ann@example.com" || u["phone"] != "" || u["aud"] != "authenticated" || u["role"] != "authenticated" {
		t.Fatalf("user = %v", u)
	}
	if u["user_metadata"].(map[string]any)["role"] != "artist" || u["user_metadata"].(map[string]any)["email_verified"] != true {
		t.Fatalf("user_metadata = %v", u["user_metadata"])
	}
	app := u["app_metadata"].(map[string]any)
	if app["provider"] != "email" || len(app["providers"].([]any)) != 1 {
		t.Fatalf("app_metadata = %v", app)
	}
	if ids := u["identities"].([]any); len(ids) != 1 || ids[0].(map[string]any)["provider"] != "email" {
		t.Fatalf("identities = %v", ids)
	}
	if _, ok := u["factors"]; ok {
		t.Fatal("factors must be omitted when empty")
	}
	// The access token carries the contract's claims and verifies with the keys.
	c, err := e.keys.Verify(m["access_token"].(string), e.clock.now())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"aud", "exp", "iat", "sub", "email", "phone", "app_metadata", "user_metadata", "role", "aal", "amr", "session_id", "is_anonymous"} {
		if _, ok := c.Map[k]; !ok {
			t.Errorf("claim %s missing", k)
		}
	}
	if c.Map["aal"] != "aal1" || c.Map["aud"] != "authenticated" || c.Subject != u["id"] {
		t.Fatalf("claims = %v", c.Map)
	}
	amr := c.Map["amr"].([]any)[0].(map[string]any)
	if amr["method"] != "password" {
		t.Fatalf("amr = %v", amr)
	}
	tok, _, _ := gojwt.NewParser().ParseUnverified(m["access_token"].(string), gojwt.MapClaims{})
	if tok.Header["alg"] != "ES256" || tok.Header["kid"] != e.keys.KID {
		t.Fatalf("header = %v", tok.Header)
	}
	// Existing confirmed user with autoconfirm: user_already_exists.
	wantErr(t, e.req("POST", "/signup", map[string]any{"email": "ann@example.com", "password": "secret123"}, ""),
		422, "user_already_exists", "User already registered")
}

func TestSignupConfirmationRequired(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	r := e.req("POST", "/signup?redirect_to=http://localhost:3000/welcome", map[string]any{"email": "bo@example.com", "password": "secret123"}, "")
	if r.Status != 200 {
		t.Fatalf("status %d %s", r.Status, r.Body)
	}
	u := r.json(t)
	if _, ok := u["access_token"]; ok {
		t.Fatal("no session expected before confirmation")
	}
	if u["confirmation_sent_at"] == nil || u["email_confirmed_at"] != nil || len(u["identities"].([]any)) != 1 {
		t.Fatalf("user = %s", r.Body)
	}
	msgs := e.mails("bo@example.com")
	if len(msgs) != 1 || msgs[0].Type != "confirmation" || len(msgs[0].Token) != 6 {
		t.Fatalf("mails = %+v", msgs)
	}
	if !strings.HasPrefix(msgs[0].Link, "http://api.test/auth/v1/verify?token=") ||
		!strings.Contains(msgs[0].Link, "type=signup") || !strings.Contains(msgs[0].Link, "redirect_to=http%3A%2F%2Flocalhost%3A3000%2Fwelcome") {
		t.Fatalf("link = %s", msgs[0].Link)
	}
	// Sign-in before confirmation: email_not_confirmed (after the password check).
	wantErr(t, e.req("POST", "/token?grant_type=password", map[string]any{"email": "bo@example.com", "password": "wrong-pass"}, ""),
		400, "invalid_credentials", "Invalid login credentials")
	wantErr(t, e.req("POST", "/token?grant_type=password", map[string]any{"email": "bo@example.com", "password": "secret123"}, ""),
		400, "email_not_confirmed", "Email not confirmed")
	// A second sign-up inside the mail throttle window is refused.
	wantErr(t, e.req("POST", "/signup", map[string]any{"email": "bo@example.com", "password": "secret123"}, ""),
		429, "over_email_send_rate_limit", "For security purposes, you can only request this after 60 seconds.")
	// Confirm with the OTP: session, and the address is verified.
	v := e.req("POST", "/verify", map[string]any{"type": "email", "email": "bo@example.com", "token": msgs[0].Token}, "")
	if v.Status != 200 {
		t.Fatalf("verify %d %s", v.Status, v.Body)
	}
	if v.json(t)["user"].(map[string]any)["email_confirmed_at"] == nil {
		t.Fatal("email not confirmed by verify")
	}
	// Anti-enumeration: signing up again returns a fake user, sends nothing.
	e.clock.add(61e9)
	f := e.req("POST", "/signup", map[string]any{"email": "bo@example.com", "password": "other123"}, "")
	fu := f.json(t)
	if f.Status != 200 || fu["id"] == u["id"] || len(fu["identities"].([]any)) != 0 {
		t.Fatalf("fake user = %s", f.Body)
	}
	if len(e.mails("bo@example.com")) != 1 {
		t.Fatal("no mail expected for a repeated sign-up")
	}
}

func TestSignupValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.PasswordMinLength = 8; c.PasswordRequiredCharacters = []string{"0123456789"} })
	for _, tc := range []struct {
		name      string
		body      string
		status    int
		code, msg string
	}{
		{"no password", `{"email":"a@b.co"}`, 400, "validation_failed", "Signup requires a valid password"},
		{"long password", `{"email":"a@b.co","password":"` + strings.Repeat("x", 73) + `"}`, 400, "validation_failed", "Password cannot be longer than 72 characters"},
		{"weak", `{"email":"a@b.co","password":"abc"}`, 422, "weak_password", "Password should be at least 8 characters. Password should contain at least one character of each: 0123456789."},
		{"both", `{"email":"a@b.co","phone":"123456789","password":"abcdefg1"}`, 400, "validation_failed", ""},
		{"bad email", `{"email":"not-an-email","password":"abcdefg1"}`, 400, "validation_failed", "Unable to validate email address: invalid format"},
		{"bad pkce", `{"email":"a@b.co","password":"abcdefg1","code_challenge":"short","code_challenge_method":"s256"}`, 400, "validation_failed", ""},
		{"pkce half", `{"email":"a@b.co","password":"abcdefg1","code_challenge":null,"code_challenge_method":"s256"}`, 400, "validation_failed", "PKCE flow requires code_challenge_method and code_challenge"},
		{"phone disabled", `{"phone":"15551234567","password":"abcdefg1"}`, 400, "phone_provider_disabled", "Phone signups are disabled"},
		{"bad json", `{"email":`, 400, "bad_json", ""},
		{"anonymous disabled", `{"data":{}}`, 422, "anonymous_provider_disabled", "Anonymous sign-ins are disabled"},
	} {
		r := e.req("POST", "/signup", tc.body, "")
		wantErr(t, r, tc.status, tc.code, tc.msg)
		if tc.code == "weak_password" {
			reasons := r.json(t)["weak_password"].(map[string]any)["reasons"].([]any)
			if len(reasons) != 2 || reasons[0] != "length" || reasons[1] != "characters" {
				t.Errorf("%s: reasons = %v", tc.name, reasons)
			}
		}
	}
	var n int
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM auth.users`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("bad input created %d users (%v)", n, err)
	}
	d := newEnv(t, func(c *Config) { c.DisableSignup = true })
	wantErr(t, d.req("POST", "/signup", `{"email":"a@b.co","password":"abcdefg1"}`, ""), 422, "signup_disabled", "Signups not allowed for this instance")
}

// An app's AFTER INSERT trigger on auth.users sees raw_user_meta_data.
func TestSignupTriggerSeesMetadata(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	e.exec(`CREATE TABLE public.profiles (id uuid PRIMARY KEY, role text NOT NULL)`)
	e.exec(`CREATE FUNCTION public.on_user() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN INSERT INTO public.profiles VALUES (NEW.id, NEW.raw_user_meta_data->>'role'); RETURN NEW; END $$`)
	e.exec(`CREATE TRIGGER on_user AFTER INSERT ON auth.users FOR EACH ROW EXECUTE FUNCTION public.on_user()`)
	s := e.req("POST", "/signup", map[string]any{"email": "t@example.com", "password": "secret123", "data": map[string]any{"role": "listener"}}, "")
	if s.Status != 200 {
		t.Fatalf("signup %d %s", s.Status, s.Body)
	}
	var role string
	id := s.json(t)["user"].(map[string]any)["id"]
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT role FROM public.profiles WHERE id = $1`, id).Scan(&role); err != nil || role != "listener" {
		t.Fatalf("profile role = %q (%v)", role, err)
	}
}

func TestSignupAnonymous(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.AnonymousEnabled = true })
	r := e.req("POST", "/signup", map[string]any{"data": map[string]any{}, "gotrue_meta_security": map[string]any{}}, e.keys.AnonKey)
	if r.Status != 200 {
		t.Fatalf("status %d %s", r.Status, r.Body)
	}
	m := r.json(t)
	u := m["user"].(map[string]any)
	if u["is_anonymous"] != true || len(u["identities"].([]any)) != 0 || len(u["app_metadata"].(map[string]any)) != 0 || u["email"] != "" {
		t.Fatalf("anonymous user = %v", u)
	}
	c, _ := e.keys.Verify(m["access_token"].(string), e.clock.now())
	if c.Map["is_anonymous"] != true || c.Map["amr"].([]any)[0].(map[string]any)["method"] != "anonymous" {
		t.Fatalf("claims = %v", c.Map)
	}
	// Linking: setting an email on an anonymous user with autoconfirm off
	// sends a confirmation to the new address.
	up := e.req("PUT", "/user", map[string]any{"email": "linked@example.com"}, m["access_token"].(string))
	if up.Status != 200 || up.json(t)["new_email"] != "linked@example.com" {
		t.Fatalf("link email %d %s", up.Status, up.Body)
	}
	msgs := e.mails("linked@example.com")
	if len(msgs) != 1 || msgs[0].Type != "email_change" {
		t.Fatalf("mails = %+v", msgs)
	}
	v := e.req("POST", "/verify", map[string]any{"type": "email_change", "email": "linked@example.com", "token": msgs[0].Token}, "")
	if v.Status != 200 {
		t.Fatalf("verify %d %s", v.Status, v.Body)
	}
	lu := v.json(t)["user"].(map[string]any)
	if lu["email"] != "linked@example.com" || lu["is_anonymous"] != false || lu["app_metadata"].(map[string]any)["provider"] != "email" {
		t.Fatalf("linked user = %v", lu)
	}
	// And now a password can be set.
	pw := e.req("PUT", "/user", map[string]any{"password": "linked-pass"}, v.json(t)["access_token"].(string))
	if pw.Status != 200 {
		t.Fatalf("set password %d %s", pw.Status, pw.Body)
	}
	if r := e.req("POST", "/token?grant_type=password", map[string]any{"email": "linked@example.com", "password": "linked-pass"}, ""); r.Status != 200 {
		t.Fatalf("sign in after linking %d %s", r.Status, r.Body)
	}
}
