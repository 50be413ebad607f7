package auth

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// Whatever a client sends as its credentials, the parser answers with one
// method that fits what was sent, or the reference's error; never a
// client id it did not send.
func FuzzClientCredentials(f *testing.F) {
	f.Add("Basic "+base64.StdEncoding.EncodeToString([]byte("id:secret")), "", "")
	f.Add("Basic !!!", "", "")
	f.Add("", "4f1c2b1e-8a8e-4a38-9a4e-0d3b9c1f1a11", "")
	f.Add("", "4f1c2b1e-8a8e-4a38-9a4e-0d3b9c1f1a11", "s3cret")
	f.Add("Bearer x", "", "s")
	f.Add("Basic "+base64.StdEncoding.EncodeToString([]byte("a%3Ab:c%zz")), "", "")
	f.Fuzz(func(t *testing.T, authorization, clientID, clientSecret string) {
		form := oauthForm{"client_id": clientID, "client_secret": clientSecret}
		id, secret, method, err := clientCredentials(authorization, form)
		if err != nil {
			if e, ok := err.(*apiError); !ok || e.Status != 400 || e.Code != "invalid_credentials" {
				t.Fatalf("error %v", err)
			}
			return
		}
		switch {
		case strings.HasPrefix(authorization, "Basic "):
			if method != authMethodBasic {
				t.Fatalf("Basic header read as %s", method)
			}
		case id != clientID || id == "":
			t.Fatalf("client id %q from a body naming %q", id, clientID)
		case (method == authMethodNone) != (secret == "") || (method != authMethodNone && method != authMethodPost):
			t.Fatalf("method %s with secret %q", method, secret)
		}
	})
}

// A redirect URI registration accepts is absolute, has no fragment and no
// comma; the code or error Basalt adds to it never moves the browser to
// another scheme, host or path, whatever the code, description or state.
func FuzzRedirectURI(f *testing.F) {
	for _, s := range []string{"https://app.example/cb", "http://localhost:3000/cb?x=1", "myapp://callback", "https://a.example/cb#f",
		"javascript://x/%0aalert(1)", "https://a.example/a,https://b.example/b", "https://user:pw@a.example:8443/p;q?x=1&x=2"} {
		f.Add(s, "code", "state")
	}
	f.Fuzz(func(t *testing.T, uri, code, state string) {
		if validateRedirectURI(uri) != nil {
			return
		}
		u, err := url.Parse(uri)
		if err != nil || u.Scheme == "" || u.Host == "" || u.Fragment != "" || strings.Contains(uri, ",") {
			t.Fatalf("accepted %q", uri)
		}
		for _, out := range []string{successRedirect(uri, code, state), errorRedirect(uri, "access_denied", code, state)} {
			v, err := url.Parse(out)
			if err != nil {
				t.Fatalf("redirect %q does not parse: %v", out, err)
			}
			if v.Scheme != u.Scheme || v.Host != u.Host || v.Path != u.Path || v.Fragment != "" {
				t.Fatalf("redirect %q leaves %q", out, uri)
			}
			if state != "" && v.Query().Get("state") != state {
				t.Fatalf("state %q came back as %q", state, v.Query().Get("state"))
			}
		}
	})
}

// An authorization request that passes the checks asks only for scopes
// the server grants and carries an S256 challenge of the right form.
func FuzzAuthorizeParams(f *testing.F) {
	f.Add("code", "openid email", "", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "S256", "st", "n")
	f.Add("", "", "https://api.example", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "s256", "", "")
	f.Add("token", "openid admin", "x#y", "short", "plain", "", "")
	s := &Service{cfg: DefaultConfig()}
	f.Fuzz(func(t *testing.T, responseType, scope, resource, challenge, method, state, nonce string) {
		p := authorizeParams{ResponseType: responseType, Scope: scope, Resource: resource, CodeChallenge: challenge,
			CodeChallengeMethod: method, State: state, Nonce: nonce}
		if s.checkAuthorizeParams(&p) != nil {
			return
		}
		if p.ResponseType != "code" || !strings.EqualFold(p.CodeChallengeMethod, "s256") || !codeChallengeRE.MatchString(p.CodeChallenge) {
			t.Fatalf("accepted %+v", p)
		}
		sc := strings.Fields(p.Scope)
		if len(sc) == 0 || slices.ContainsFunc(sc, func(x string) bool { return !supportedScope(x) }) {
			t.Fatalf("accepted scope %q", p.Scope)
		}
	})
}
