package auth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// This file is a whole provider and its test: a made-up OAuth 2.0
// service, "example", registered the way provider_github.go registers
// GitHub. Nothing else in the package names it, yet its settings are read
// from EXTERNAL_EXAMPLE_*, checked, listed in /settings, and it signs
// users in through /authorize and /callback. A new provider is a file like
// this one (without the _test) and its test.
func init() {
	registerProvider(&builtinProvider{
		name: "example",
		redirect: func(_ context.Context, _ *Service, pc ProviderConfig, conf *oauth2.Config, extra []string) (oauthProvider, error) {
			conf.Scopes = append([]string{"profile"}, extra...)
			conf.Endpoint = oauth2.Endpoint{AuthURL: pc.URL + "/authorize", TokenURL: pc.URL + "/token"}
			return &exampleProvider{oauth2Flow{conf}, pc.URL + "/me"}, nil
		},
	})
}

type exampleProvider struct {
	oauth2Flow
	me string
}

func (p *exampleProvider) userData(ctx context.Context, tok *oauth2.Token, _ string) (*providerUser, error) {
	var u struct {
		ID, Email, Name string
	}
	if err := getJSON(ctx, p.conf, tok, p.me, &u); err != nil {
		return nil, err
	}
	return &providerUser{
		Claims: providerClaims{Issuer: p.me, Subject: u.ID, Name: u.Name, FullName: u.Name, ProviderID: u.ID},
		Emails: []providerEmail{{Email: u.Email, Verified: true, Primary: true}},
	}, nil
}

// exampleService plays the example provider: its sign-in page signs the
// user straight in, its token endpoint checks the client and the code.
func exampleService(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		to, _ := url.Parse(r.URL.Query().Get("redirect_uri"))
		to.RawQuery = url.Values{"code": {"ex-code"}, "state": {r.URL.Query().Get("state")}}.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		id, secret, _ := r.BasicAuth()
		w.Header().Set("Content-Type", "application/json")
		if id != "ex-client" || secret != "ex-secret" || r.FormValue("code") != "ex-code" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		_, _ = w.Write([]byte(`{"access_token":"ex-token","token_type":"bearer"}`))
	})
	mux.HandleFunc("GET /me", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer ex-token" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{"id":"ex-9","email":"Ex@Example.com","name":"Ex Ample"}`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestProviderRegisteredInOneFile(t *testing.T) {
	t.Parallel()
	srv := exampleService(t)
	vars := map[string]string{
		"BASALT_AUTH_EXTERNAL_EXAMPLE_ENABLED":   "true",
		"BASALT_AUTH_EXTERNAL_EXAMPLE_CLIENT_ID": "ex-client",
		"GOTRUE_EXTERNAL_EXAMPLE_SECRET":         "ex-secret",
		"BASALT_AUTH_EXTERNAL_EXAMPLE_URL":       srv.URL,
	}
	getenv := func(k string) string { return vars[k] }

	// Its settings are read and checked like every provider's.
	c, err := ConfigFromEnv(getenv)
	if err != nil {
		t.Fatal(err)
	}
	pc := c.External["example"]
	if !pc.Enabled || pc.Secret != "ex-secret" || pc.URL != srv.URL || len(pc.ClientIDs) != 1 {
		t.Fatalf("example settings %+v", pc)
	}
	delete(vars, "GOTRUE_EXTERNAL_EXAMPLE_SECRET")
	if _, err := ConfigFromEnv(getenv); err == nil || !strings.Contains(err.Error(), "EXTERNAL_EXAMPLE_SECRET") {
		t.Fatalf("enabled without a secret: %v", err)
	}

	// /settings lists it, off until it is configured.
	listed := func(e *env) (bool, bool) {
		var s struct {
			External map[string]bool `json:"external"`
		}
		if err := json.Unmarshal(e.req("GET", "/settings", nil, "").Body, &s); err != nil {
			t.Fatal(err)
		}
		on, ok := s.External["example"]
		return on, ok
	}
	if on, ok := listed(newEnv(t, nil)); on || !ok {
		t.Fatalf("unconfigured: listed %v, on %v", ok, on)
	}
	pc.RedirectURI = "" // the callback of the test service's own API URL
	e := newEnv(t, func(c *Config) { c.External = map[string]ProviderConfig{"example": pc} })
	if on, ok := listed(e); !on || !ok {
		t.Fatalf("configured: listed %v, on %v", ok, on)
	}

	// It signs a user in through /authorize and /callback.
	authz, h := e.browser(srv.URL).follow(t, "/authorize?provider=example&scopes=email")
	if authz.Host != strings.TrimPrefix(srv.URL, "http://") || authz.Path != "/authorize" || authz.Query().Get("scope") != "profile email" {
		t.Fatalf("authorization request %v", authz)
	}
	if h.Location == nil {
		t.Fatalf("callback answered %d %s", h.Status, h.Body)
	}
	u := e.req("GET", "/user", nil, fragment(t, h.Location).Get("access_token")).json(t)
	id := u["identities"].([]any)[0].(map[string]any)
	if u["email"] != "ex@example.com" || id["provider"] != "example" || id["id"] != "ex-9" ||
		id["identity_data"].(map[string]any)["full_name"] != "Ex Ample" {
		t.Fatalf("example user %v", u)
	}
}
