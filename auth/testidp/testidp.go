// Package testidp runs a real OpenID Connect provider for tests of the
// external sign-in flows: mockoidc's server (discovery, JWKS, the
// authorization code flow with PKCE and nonce, RS256 ID tokens, userinfo)
// plus what a test needs to steer it: the user the next authorization
// signs in, a refusal (a redirect back with error=access_denied, as a
// provider answers when the user cancels), and ID tokens obtained the
// way a native app obtains them. It is never part of the basalt binary.
package testidp

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"
	"golang.org/x/oauth2"
)

// IdP is a running provider.
type IdP struct {
	*mockoidc.MockOIDC
	mu   sync.Mutex
	deny bool
	// roots trusts the certificate of a provider started with StartTLS.
	roots *x509.CertPool
}

var scopesOnce sync.Once

// Start runs a provider on addr ("127.0.0.1:0" for any free port).
func Start(addr string) (*IdP, error) { return start(addr, false) }

// StartTLS runs a provider over HTTPS, with a certificate of its own for
// 127.0.0.1 that HTTPClient trusts: for flows that accept only https
// provider URLs.
func StartTLS(addr string) (*IdP, error) { return start(addr, true) }

// HTTPClient is a client for talking to the provider (trusting its
// certificate when it has one).
func (p *IdP) HTTPClient() *http.Client {
	c := &http.Client{Timeout: 10 * time.Second}
	if p.roots != nil {
		c.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.roots}}
	}
	return c
}

func start(addr string, withTLS bool) (*IdP, error) {
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		return nil, err
	}
	// Apple asks for the "name" scope, which mockoidc does not list.
	scopesOnce.Do(func() { mockoidc.ScopesSupported = append(mockoidc.ScopesSupported, "name") })
	p := &IdP{MockOIDC: m}
	if err := m.AddMiddleware(p.steer); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	var tlsCfg *tls.Config
	if withTLS {
		cert, roots, err := selfSigned()
		if err != nil {
			return nil, err
		}
		tlsCfg, p.roots = &tls.Config{Certificates: []tls.Certificate{cert}}, roots
		// mockoidc serves the listener as it is: TLS must be in it.
		ln = tls.NewListener(ln, tlsCfg)
	}
	if err := m.Start(ln, tlsCfg); err != nil {
		return nil, err
	}
	return p, nil
}

// selfSigned makes a certificate for 127.0.0.1 and localhost, and a pool
// that trusts it.
func selfSigned() (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "testidp"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots, nil
}

// Close stops the provider.
func (p *IdP) Close() error { return p.Shutdown() }

// User is someone at the provider, with the profile claims real
// providers put in ID tokens.
type User struct {
	Sub      string `json:"sub"`
	Email    string `json:"email"`
	Verified bool   `json:"email_verified"`
	Name     string `json:"name,omitempty"`
	Picture  string `json:"picture,omitempty"`
}

// ID implements mockoidc.User.
func (u *User) ID() string { return u.Sub }

// Userinfo implements mockoidc.User.
func (u *User) Userinfo([]string) ([]byte, error) {
	return json.Marshal(map[string]any{"sub": u.Sub, "email": u.Email, "email_verified": u.Verified, "name": u.Name})
}

// Claims implements mockoidc.User.
func (u *User) Claims(_ []string, base *mockoidc.IDTokenClaims) (gojwt.Claims, error) {
	return &claims{IDTokenClaims: base, Email: u.Email, EmailVerified: u.Verified, Name: u.Name, Picture: u.Picture}, nil
}

type claims struct {
	*mockoidc.IDTokenClaims
	Email         string `json:"email,omitempty"`
	EmailVerified bool   `json:"email_verified"`
	Name          string `json:"name,omitempty"`
	Picture       string `json:"picture,omitempty"`
}

// Next queues the user the next authorization signs in.
func (p *IdP) Next(u *User) { p.QueueUser(u) }

// RefuseNext makes the next authorization a refusal.
func (p *IdP) RefuseNext() { p.mu.Lock(); p.deny = true; p.mu.Unlock() }

// Sign signs claims with the provider's key.
func (p *IdP) Sign(c gojwt.MapClaims) (string, error) { return p.Keypair.SignJWT(c) }

// IDToken signs u in the way a native app does (its own OAuth client and
// a nonce it hashed itself; "" for none) and returns the ID token.
func (p *IdP) IDToken(ctx context.Context, u *User, hashedNonce string) (string, error) {
	conf := &oauth2.Config{ClientID: p.ClientID, ClientSecret: p.ClientSecret, RedirectURL: "http://app.test/cb",
		Endpoint: oauth2.Endpoint{AuthURL: p.AuthorizationEndpoint(), TokenURL: p.TokenEndpoint()},
		Scopes:   []string{"openid", "email", "profile"}}
	p.Next(u)
	var opts []oauth2.AuthCodeOption
	if hashedNonce != "" {
		opts = append(opts, oauth2.SetAuthURLParam("nonce", hashedNonce))
	}
	c := p.HTTPClient()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	ctx = context.WithValue(ctx, oauth2.HTTPClient, p.HTTPClient())
	res, err := c.Get(conf.AuthCodeURL("native", opts...))
	if err != nil {
		return "", err
	}
	_ = res.Body.Close()
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		return "", err
	}
	tok, err := conf.Exchange(ctx, loc.Query().Get("code"))
	if err != nil {
		return "", err
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return "", errors.New("no ID token in the token response")
	}
	return raw, nil
}

// steer serves the refusal, and adds the openid
// scope to requests without it: Apple issues an ID token without it,
// mockoidc only with it first.
func (p *IdP) steer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != mockoidc.AuthorizationEndpoint {
			next.ServeHTTP(w, r)
			return
		}
		p.mu.Lock()
		deny := p.deny
		p.deny = false
		p.mu.Unlock()
		q := r.URL.Query()
		if deny {
			to, err := url.Parse(q.Get("redirect_uri"))
			if err != nil {
				http.Error(w, "bad redirect_uri", http.StatusBadRequest)
				return
			}
			to.RawQuery = url.Values{"error": {"access_denied"}, "error_description": {"The user denied the request"},
				"state": {q.Get("state")}}.Encode()
			http.Redirect(w, r, to.String(), http.StatusFound)
			return
		}
		if !strings.HasPrefix(q.Get("scope"), "openid") {
			q.Set("scope", strings.TrimSpace("openid "+q.Get("scope")))
			r.URL.RawQuery = q.Encode()
		}
		next.ServeHTTP(w, r)
	})
}

// Control serves POST /control/next (a User as JSON), POST
// /control/refuse and POST /control/id_token ({"user": User, "nonce":
// hashed nonce} → {"id_token": …}), for tests in other processes.
func (p *IdP) Control() http.Handler { return http.HandlerFunc(p.control) }

func (p *IdP) control(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	switch r.URL.Path {
	case "/control/next":
		var u User
		if err := json.NewDecoder(r.Body).Decode(&u); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p.Next(&u)
	case "/control/refuse":
		p.RefuseNext()
	case "/control/id_token":
		var in struct {
			User  User   `json:"user"`
			Nonce string `json:"nonce"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		tok, err := p.IDToken(r.Context(), &in.User, in.Nonce)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"id_token": tok})
		return
	default:
		http.NotFound(w, r)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
