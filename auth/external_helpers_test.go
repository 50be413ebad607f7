package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/auth/testidp"
)

// testIdP is a real OpenID Connect provider on a local port for one test
// (package testidp): users signing in are queued with next, refuseNext
// makes the next authorization a refusal.
type testIdP struct {
	*testidp.IdP
}

func startIdP(t *testing.T) *testIdP {
	t.Helper()
	p, err := testidp.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return &testIdP{p}
}

// next queues the user the next authorization signs in.
func (p *testIdP) next(u *idpUser) { p.Next(u) }

func (p *testIdP) refuseNext() { p.RefuseNext() }

// providerConfig is this provider's settings for Basalt.
func (p *testIdP) providerConfig() ProviderConfig {
	return ProviderConfig{Enabled: true, ClientIDs: []string{p.ClientID}, Secret: p.ClientSecret, Issuer: p.Issuer()}
}

// sign signs claims with the provider's key, as the provider's own ID
// tokens are signed.
func (p *testIdP) sign(t *testing.T, claims gojwt.MapClaims) string {
	t.Helper()
	tok, err := p.Sign(claims)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// idToken signs u in at the provider the way a native app does and
// returns the ID token it got.
func (p *testIdP) idToken(t *testing.T, u *idpUser, hashedNonce string) string {
	t.Helper()
	tok, err := p.IDToken(t.Context(), u, hashedNonce)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

type idpUser = testidp.User

// browser follows a provider flow as a browser would: through Basalt's
// /authorize, the provider, and back to Basalt's /callback (requests to
// the API URL go to the service in process, others over the network),
// stopping at the first redirect that leaves both.
type browser struct {
	e         *env
	http      *http.Client
	providers []string // origins the flow may visit
}

func (e *env) browser(providerOrigins ...string) *browser {
	return &browser{e: e, providers: providerOrigins, http: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// hop is one response on the way.
type hop struct {
	Status   int
	Location *url.URL
	Body     []byte
}

// get requests one URL (absolute, or a path of the auth service) without
// following its redirect.
func (b *browser) get(t *testing.T, raw string) hop {
	t.Helper()
	return b.do(t, "GET", raw, nil)
}

func (b *browser) do(t *testing.T, method, raw string, form url.Values) hop {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	api, _ := url.Parse(b.e.svc.cfg.APIURL)
	if u.Host == "" || u.Host == api.Host {
		path := strings.TrimPrefix(u.Path, "/auth/v1")
		if u.RawQuery != "" {
			path += "?" + u.RawQuery
		}
		var r *resp
		if form != nil {
			r = b.e.form(method, path, form)
		} else {
			r = b.e.req(method, path, nil, "")
		}
		return hopOf(t, r.Status, r.Header, r.Body)
	}
	var res *http.Response
	if form != nil {
		res, err = b.http.PostForm(u.String(), form)
	} else {
		res, err = b.http.Get(u.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return hopOf(t, res.StatusCode, res.Header, body)
}

func hopOf(t *testing.T, status int, h http.Header, body []byte) hop {
	t.Helper()
	out := hop{Status: status, Body: body}
	if loc := h.Get("Location"); loc != "" {
		u, err := url.Parse(loc)
		if err != nil {
			t.Fatalf("bad Location %q", loc)
		}
		out.Location = u
	}
	return out
}

// follow starts at raw and follows redirects while they stay on the
// provider or Basalt's auth service; it returns the provider's
// authorization request (the first hop off Basalt) and the final answer.
func (b *browser) follow(t *testing.T, raw string) (authz *url.URL, last hop) {
	t.Helper()
	api, _ := url.Parse(b.e.svc.cfg.APIURL)
	for i := 0; i < 10; i++ {
		h := b.get(t, raw)
		if h.Location == nil || (h.Status != 302 && h.Status != 303) {
			return authz, h
		}
		next := h.Location
		onAPI := next.Host == api.Host && strings.HasPrefix(next.Path, "/auth/v1/")
		if authz == nil && !onAPI {
			authz = next
		}
		if !onAPI && !b.onProvider(next) {
			return authz, h
		}
		raw = next.String()
	}
	t.Fatal("too many redirects")
	return nil, hop{}
}

func (b *browser) onProvider(u *url.URL) bool {
	for _, o := range b.providers {
		if strings.HasPrefix(u.String(), o) {
			return true
		}
	}
	return false
}

// form posts a form to the service, as a provider's form_post does.
func (e *env) form(method, path string, v url.Values) *resp {
	e.t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(v.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("X-Real-Ip", "10.0.0.1")
	w := httptest.NewRecorder()
	e.svc.ServeHTTP(w, r)
	return &resp{Status: w.Code, Header: w.Header(), Body: w.Body.Bytes()}
}

// fragment parses the fragment of a redirect.
func fragment(t *testing.T, u *url.URL) url.Values {
	t.Helper()
	v, err := url.ParseQuery(u.Fragment)
	if err != nil {
		t.Fatalf("fragment %q: %v", u.Fragment, err)
	}
	return v
}

// sha256Hex is how apps hash the nonce they give a provider.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// withIdP configures the named providers on the test provider, with
// manual linking on.
func withIdP(idp *testIdP, names ...string) func(*Config) {
	return func(c *Config) {
		c.External = map[string]ProviderConfig{}
		for _, n := range names {
			c.External[n] = idp.providerConfig()
		}
		c.ManualLinking = true
	}
}
