package auth

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"BASALT_AUTH_SITE_URL":                         "https://app.example",
		"GOTRUE_API_EXTERNAL_URL":                      "https://api.example/auth/v1",
		"BASALT_AUTH_URI_ALLOW_LIST":                   "https://app.example/**, http://localhost:5173/*",
		"GOTRUE_MAILER_AUTOCONFIRM":                    "true",
		"BASALT_AUTH_JWT_EXP":                          "600",
		"BASALT_AUTH_SMTP_MAX_FREQUENCY":               "1s",
		"BASALT_AUTH_SMS_TEST_OTP":                     "+15550001111:123456,15550002222:654321",
		"BASALT_AUTH_RATE_LIMIT_OTP":                   "0",
		"BASALT_AUTH_PASSWORD_REQUIRED_CHARACTERS":     "abc:0123456789",
		"GOTRUE_RATE_LIMIT_PASSWORD_FAILURES":          "8",
		"BASALT_AUTH_RATE_LIMIT_PASSWORD_MAX_DELAY":    "2m",
		"BASALT_AUTH_PASSWORD_HASH_WORKERS":            "3",
		"BASALT_AUTH_PASSWORD_HASH_MAX_WAIT":           "250ms",
		"BASALT_AUTH_MFA_RATE_LIMIT_VERIFY_PER_FACTOR": "4",
	}
	c, err := ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.SiteURL != "https://app.example" || c.APIURL != "https://api.example" || !c.MailerAutoconfirm ||
		c.JWTIssuer != "https://api.example/auth/v1" || c.JWTExp != 10*time.Minute || c.MaxEmailFrequency != time.Second || c.RateLimits.OTP != 0 || c.RateLimits.Token != 150 {
		t.Fatalf("config = %+v", c)
	}
	if rl := c.RateLimits; rl.MFAVerifyFactor != 4 || rl.MFA != 15 {
		t.Errorf("mfa limits = %+v", rl)
	}
	if rl := c.RateLimits; rl.PasswordFailures != 8 || rl.PasswordAccountFailures != 50 || rl.PasswordMaxDelay != 2*time.Minute {
		t.Errorf("password limits = %+v", rl)
	}
	if c.PasswordHashWorkers != 3 || c.PasswordHashMaxWait != 250*time.Millisecond {
		t.Errorf("hash pool = %d workers, %s wait", c.PasswordHashWorkers, c.PasswordHashMaxWait)
	}
	if d, err := ConfigFromEnv(func(string) string { return "" }); err != nil || d.PasswordHashWorkers < 1 {
		t.Errorf("default hash workers = %d (%v), want the CPU count", d.PasswordHashWorkers, err)
	}
	if diff := cmp.Diff([]string{"https://app.example/**", "http://localhost:5173/*"}, c.URIAllowList); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff(map[string]string{"15550001111": "123456", "15550002222": "654321"}, c.SMSTestOTP); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]string{"abc", "0123456789"}, c.PasswordRequiredCharacters); diff != "" {
		t.Error(diff)
	}
	for name, bad := range map[string]map[string]string{
		"bool":     {"BASALT_AUTH_DISABLE_SIGNUP": "maybe"},
		"int":      {"BASALT_AUTH_MAILER_OTP_LENGTH": "six"},
		"range":    {"BASALT_AUTH_MAILER_OTP_LENGTH": "4"},
		"url":      {"BASALT_AUTH_SITE_URL": "not a url"},
		"duration": {"BASALT_AUTH_SMTP_MAX_FREQUENCY": "soon"},
	} {
		if _, err := ConfigFromEnv(func(k string) string { return bad[k] }); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// A bad environment is refused with every problem named at once, each by
// the variable that was set (BASALT_AUTH_ or GOTRUE_), whether it does not
// parse or parses to a value the service cannot use.
func TestConfigFromEnvReportsEveryProblem(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"BASALT_AUTH_DISABLE_SIGNUP":              "maybe",
		"GOTRUE_RATE_LIMIT_OTP":                   "lots",
		"BASALT_AUTH_JWT_EXP":                     "soon",
		"GOTRUE_SMS_TEST_OTP":                     "15550001111",
		"BASALT_AUTH_SMTP_PORT":                   "70000",
		"GOTRUE_SITE_URL":                         "not a url",
		"BASALT_AUTH_MAILER_OTP_LENGTH":           "4",
		"GOTRUE_BCRYPT_COST":                      "99",
		"BASALT_AUTH_EXTERNAL_GOOGLE_ENABLED":     "true",
		"GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED": "yes",
		"GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI":     "https://hook.example",
		"GOTRUE_SAML_PRIVATE_KEY":                 "bm90IGEga2V5",
		"BASALT_AUTH_PASSWORD_HASH_WORKERS":       "-1",
	}
	_, err := ConfigFromEnv(func(k string) string { return env[k] })
	if err == nil {
		t.Fatal("ConfigFromEnv accepted a bad environment")
	}
	for _, want := range []string{
		`BASALT_AUTH_DISABLE_SIGNUP="maybe": not a boolean`,
		`GOTRUE_RATE_LIMIT_OTP="lots": not an integer`,
		`BASALT_AUTH_JWT_EXP="soon": not a number of seconds or a duration`,
		`GOTRUE_SMS_TEST_OTP: "15550001111" is not key:value`,
		`BASALT_AUTH_SMTP_PORT=70000: must be from 0 to 65535`,
		`GOTRUE_SITE_URL: "not a url" must be an absolute URL`,
		`BASALT_AUTH_MAILER_OTP_LENGTH: 4 must be between 6 and 10`,
		`GOTRUE_BCRYPT_COST: 99 must be between 4 and 31`,
		`BASALT_AUTH_EXTERNAL_GOOGLE_CLIENT_ID: provider google is enabled without a client id`,
		`BASALT_AUTH_EXTERNAL_GOOGLE_SECRET: provider google is enabled without a secret`,
		`GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI="https://hook.example": want pg-functions://<db>/<schema>/<function>`,
		`GOTRUE_SAML_PRIVATE_KEY: not an RSA key in PKCS#1 format`,
		`BASALT_AUTH_PASSWORD_HASH_WORKERS: -1 must not be negative`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal lacks %s:\n%v", want, err)
		}
	}
	// A key is a secret: its problem never repeats it.
	if strings.Contains(err.Error(), "bm90IGEga2V5") {
		t.Errorf("the refusal repeats the SAML key:\n%v", err)
	}
}

func TestRedirectAllowList(t *testing.T) {
	t.Parallel()
	s := &Service{cfg: Config{SiteURL: "https://app.example", URIAllowList: []string{"https://*.example.org/cb", "https://preview.example.net/**"}}}
	for raw, want := range map[string]bool{
		"https://app.example/welcome":              true,
		"https://app.example:8443/x":               false,
		"http://app.example/x":                     false,
		"http://127.0.0.1:3000/cb":                 true,
		"https://a.example.org/cb":                 true,
		"https://a.b.example.org/cb":               false, // * stops at dots
		"https://preview.example.net/a/b/c":        true,
		"https://evil.example/https://app.example": false,
		"/relative": false,
	} {
		if got := s.redirectAllowed(raw); got != want {
			t.Errorf("redirectAllowed(%q) = %v, want %v", raw, got, want)
		}
	}
}

// With HS256 signing, access tokens carry no kid and verify with the secret.
func TestHS256AccessTokens(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	e.keys.SigningAlg = "HS256"
	at := e.signUp("hs@example.com", "secret123")["access_token"].(string)
	tok, _, err := gojwt.NewParser().ParseUnverified(at, gojwt.MapClaims{})
	if err != nil || tok.Header["alg"] != "HS256" || tok.Header["kid"] != nil {
		t.Fatalf("header %v (%v)", tok.Header, err)
	}
	if r := e.req("GET", "/user", nil, at); r.Status != 200 {
		t.Fatalf("get user %d", r.Status)
	}
	if !strings.Contains(string(e.req("GET", "/.well-known/jwks.json", nil, "").Body), `"kty":"EC"`) {
		t.Fatal("jwks must still list only the public EC key")
	}
}

func TestMailTemplatesFromEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := dir + "/confirm.html"
	if err := os.WriteFile(path, []byte(`<p>Hi {{ .Email }}, code {{ .Token }} — <a href="{{ .ConfirmationURL }}">go</a></p>`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GOTRUE_MAILER_TEMPLATES_CONFIRMATION": path, "GOTRUE_MAILER_SUBJECTS_CONFIRMATION": "Welcome {{ .Email }}'s"}
	cfg, err := ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *Config) { c.MailSubjects, c.MailTemplates = cfg.MailSubjects, cfg.MailTemplates })
	e.req("POST", "/signup", `{"email":"tpl@example.com","password":"secret123"}`, "")
	m := e.mails("tpl@example.com")[0]
	if m.Subject != "Welcome tpl@example.com's" || !strings.HasPrefix(m.Body, "<p>Hi tpl@example.com, code "+m.Token) || !strings.Contains(m.Body, "token=") {
		t.Fatalf("mail %q %q", m.Subject, m.Body)
	}
	if _, err := ConfigFromEnv(func(k string) string {
		return map[string]string{"GOTRUE_MAILER_TEMPLATES_RECOVERY": dir + "/missing.html"}[k]
	}); err == nil {
		t.Fatal("missing template file must fail")
	}
	// The reference's form: an http(s) URL, fetched at start-up.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/recovery.html" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`<a href="{{ .ConfirmationURL }}">reset</a>`))
	}))
	defer srv.Close()
	fromURL, err := ConfigFromEnv(func(k string) string {
		return map[string]string{"GOTRUE_MAILER_TEMPLATES_RECOVERY": srv.URL + "/recovery.html"}[k]
	})
	if err != nil || !strings.Contains(fromURL.MailTemplates["recovery"], "reset") {
		t.Fatalf("template from URL: %q %v", fromURL.MailTemplates["recovery"], err)
	}
	if _, err := ConfigFromEnv(func(k string) string {
		return map[string]string{"GOTRUE_MAILER_TEMPLATES_RECOVERY": srv.URL + "/missing.html"}[k]
	}); err == nil {
		t.Fatal("a 404 template URL must fail")
	}
	bad := DefaultConfig()
	bad.MailTemplates = map[string]string{"recovery": "{{ .Broken "}
	if err := bad.Validate(); err == nil {
		t.Fatal("unparsable template must fail")
	}
}
