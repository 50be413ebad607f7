package auth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// oauthEnv is an auth service with the OAuth server on, served over HTTP
// under /auth/v1 as the gateway mounts it, so that third-party client
// libraries can discover it at its issuer.
type oauthEnv struct {
	*env
	srv    *httptest.Server
	issuer string
	// http follows no redirects: the tests look at each one.
	http *http.Client
}

func newOAuthEnv(t *testing.T, mutate func(*Config)) *oauthEnv {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	e := newEnv(t, func(c *Config) {
		autoconfirm(c)
		c.APIURL = base
		c.JWTIssuer = base + "/auth/v1"
		c.SiteURL = "http://localhost:3000"
		c.OAuthServer.Enabled = true
		c.OAuthServer.AllowDynamicRegistration = true
		c.OAuthServer.AuthorizationPath = "/oauth/consent"
		if mutate != nil {
			mutate(c)
		}
	})
	mux := http.NewServeMux()
	mux.Handle("/auth/v1/", http.StripPrefix("/auth/v1", e.svc))
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	return &oauthEnv{env: e, srv: srv, issuer: base + "/auth/v1",
		http: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// client registers a client through the admin API and returns its answer.
func (o *oauthEnv) client(body map[string]any) map[string]any {
	o.t.Helper()
	r := o.req("POST", "/admin/oauth/clients", body, o.service())
	if r.Status != 201 {
		o.t.Fatalf("register client: %d %s", r.Status, r.Body)
	}
	return r.json(o.t)
}

// authorize sends the browser's GET /oauth/authorize with q and returns
// the response (not followed).
func (o *oauthEnv) authorize(q url.Values) *http.Response {
	o.t.Helper()
	res, err := o.http.Get(o.issuer + "/oauth/authorize?" + q.Encode())
	if err != nil {
		o.t.Fatal(err)
	}
	_ = res.Body.Close()
	return res
}

// authorizationID follows /oauth/authorize to the consent page and
// returns the authorization_id it was handed.
func (o *oauthEnv) authorizationID(authURL string) string {
	o.t.Helper()
	res, err := o.http.Get(authURL)
	if err != nil {
		o.t.Fatal(err)
	}
	_ = res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || loc == nil || !strings.HasPrefix(loc.String(), "http://localhost:3000/oauth/consent?") {
		o.t.Fatalf("authorize: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	return loc.Query().Get("authorization_id")
}

// decide has the signed-in user answer the authorization on the consent
// page and returns where the browser is sent.
func (o *oauthEnv) decide(userToken, authorizationID, action string) *url.URL {
	o.t.Helper()
	r := o.req("POST", "/oauth/authorizations/"+authorizationID+"/consent", map[string]string{"action": action}, userToken)
	if r.Status != 200 {
		o.t.Fatalf("consent %s: %d %s", action, r.Status, r.Body)
	}
	u, err := url.Parse(r.json(o.t)["redirect_url"].(string))
	if err != nil {
		o.t.Fatal(err)
	}
	return u
}

// consentedCode plays a browser through authorize and an approval of
// the details page, and returns the code the client receives.
func (o *oauthEnv) consentedCode(userToken, authURL string) string {
	o.t.Helper()
	id := o.authorizationID(authURL)
	if r := o.req("GET", "/oauth/authorizations/"+id, nil, userToken); r.Status != 200 {
		o.t.Fatalf("authorization details: %d %s", r.Status, r.Body)
	}
	return o.decide(userToken, id, "approve").Query().Get("code")
}

// postForm posts a form to the OAuth server, with HTTP Basic credentials
// when user is not "".
func (o *oauthEnv) postForm(path string, form url.Values, user, pass string) (int, map[string]any) {
	o.t.Helper()
	req, _ := http.NewRequest("POST", o.issuer+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	res, err := o.http.Do(req)
	if err != nil {
		o.t.Fatal(err)
	}
	defer res.Body.Close()
	m := map[string]any{}
	_ = json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

// oauthConfig is a third-party client's golang.org/x/oauth2 settings.
func (o *oauthEnv) oauthConfig(c map[string]any, redirect string, scopes ...string) *oauth2.Config {
	secret, _ := c["client_secret"].(string)
	style := oauth2.AuthStyleInHeader
	if secret == "" {
		style = oauth2.AuthStyleInParams
	}
	return &oauth2.Config{ClientID: c["client_id"].(string), ClientSecret: secret, RedirectURL: redirect, Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: o.issuer + "/oauth/authorize", TokenURL: o.issuer + "/oauth/token", AuthStyle: style}}
}

// ctx is a context whose oauth2 calls go through o's server.
func (o *oauthEnv) ctx() context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, o.srv.Client())
}

// rsaKeySet returns a one-key RS256 JWK set (GOTRUE_JWT_KEYS's form)
// whose key signs.
func rsaKeySet(t *testing.T) []byte {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(i *big.Int) string { return base64.RawURLEncoding.EncodeToString(i.Bytes()) }
	set, _ := json.Marshal([]map[string]any{{"kty": "RSA", "kid": "rsa-oauth", "alg": "RS256", "key_ops": []string{"sign", "verify"},
		"n": enc(k.N), "e": enc(big.NewInt(int64(k.E))), "d": enc(k.D), "p": enc(k.Primes[0]), "q": enc(k.Primes[1])}})
	return set
}

// jsonDecode reads a response body as JSON.
func jsonDecode(res *http.Response, v any) error { return json.NewDecoder(res.Body).Decode(v) }
