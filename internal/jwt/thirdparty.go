package jwt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
)

// ThirdParty trusts the JWTs of external OIDC issuers, as Supabase's
// third-party auth does (Firebase Auth, Auth0, Clerk, AWS Cognito, WorkOS,
// any issuer with OIDC discovery): a token whose "iss" is on the allow-list
// is checked against that issuer's JWKS, fetched from the jwks_uri of its
// discovery document (or given), kept, and fetched again every Refresh and
// when a token names a kid it has not seen (at most every minFetchGap).
// Only asymmetric tokens with a kid are accepted, as there. The caller's
// role is the token's "role" claim, DefaultRole without one, and its "sub"
// is the user id RLS sees (auth.jwt()->>'sub'); the claims reach Postgres
// as the issuer wrote them.
type ThirdParty struct {
	// DefaultRole is the role of a token without a "role" claim: "anon",
	// as Supabase documents for its integrations (they ask for a custom
	// role claim of "authenticated"), unless configured otherwise.
	DefaultRole string
	// Refresh is how long fetched keys are used before they are fetched
	// again (Supabase: changes are picked up within 30 minutes).
	Refresh time.Duration
	// Client fetches discovery documents and key sets.
	Client *http.Client

	issuers map[string]*issuer
}

// Issuer is one trusted issuer: its "iss" exactly, and optionally the JWKS
// address (otherwise read from <issuer>/.well-known/openid-configuration).
type Issuer struct {
	Issuer  string
	JWKSURL string
}

type issuer struct {
	Issuer
	mu      sync.Mutex // one fetch at a time
	keys    map[string]*SetKey
	fetched time.Time // when keys were fetched
	tried   time.Time // when a fetch was last tried
}

// minFetchGap bounds the fetches an unknown kid can cause: a stream of
// tokens with made-up kids costs the issuer one request per gap at most.
const minFetchGap = 10 * time.Second

// maxDocBytes caps a discovery document or key set.
const maxDocBytes = 1 << 20

// NewThirdParty trusts the given issuers. An issuer must be an https URL
// (http is allowed for loopback hosts, for development).
func NewThirdParty(issuers []Issuer, defaultRole string, refresh time.Duration) (*ThirdParty, error) {
	tp := &ThirdParty{DefaultRole: defaultRole, Refresh: refresh, Client: &http.Client{Timeout: 5 * time.Second},
		issuers: map[string]*issuer{}}
	if tp.DefaultRole == "" {
		tp.DefaultRole = "anon"
	}
	if tp.Refresh <= 0 {
		tp.Refresh = 10 * time.Minute
	}
	for _, is := range issuers {
		err := checkURL(is.Issuer)
		if err == nil && is.JWKSURL != "" {
			err = checkURL(is.JWKSURL)
		}
		if err != nil {
			return nil, fmt.Errorf("third-party issuer %q: %w", is.Issuer, err)
		}
		if _, dup := tp.issuers[is.Issuer]; dup {
			return nil, fmt.Errorf("third-party issuer %q given twice", is.Issuer)
		}
		tp.issuers[is.Issuer] = &issuer{Issuer: is}
	}
	return tp, nil
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", s)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			return nil
		}
	}
	return fmt.Errorf("%q: want https (http only on a loopback host)", s)
}

// Issuers lists the trusted issuers.
func (tp *ThirdParty) Issuers() []string {
	var out []string
	for k := range tp.issuers {
		out = append(out, k)
	}
	return out
}

// trusts returns the issuer a token claims, when it is trusted.
func (tp *ThirdParty) trusts(token string) *issuer {
	if tp == nil || len(tp.issuers) == 0 {
		return nil
	}
	var c struct {
		Iss string `json:"iss"`
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil
	}
	payload, err := gojwt.NewParser().DecodeSegment(parts[1])
	if err != nil || json.Unmarshal(payload, &c) != nil {
		return nil
	}
	return tp.issuers[c.Iss]
}

// verify checks a token of a trusted issuer.
func (tp *ThirdParty) verify(is *issuer, token string, now time.Time) (*Claims, error) {
	mc := gojwt.MapClaims{}
	parser := gojwt.NewParser(
		gojwt.WithValidMethods([]string{"RS256", "ES256"}),
		gojwt.WithLeeway(Leeway),
		gojwt.WithIssuedAt(),
		gojwt.WithIssuer(is.Issuer.Issuer),
		gojwt.WithTimeFunc(func() time.Time { return now }),
		gojwt.WithJSONNumber(),
	)
	_, err := parser.ParseWithClaims(token, mc, func(t *gojwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, errors.New("a third-party token needs a kid")
		}
		k, err := is.key(tp, kid, now)
		if err != nil {
			return nil, err
		}
		if k.Alg != t.Method.Alg() {
			return nil, fmt.Errorf("kid %q is a %s key, token is %s", kid, k.Alg, t.Method.Alg())
		}
		return k.public, nil
	})
	if err != nil {
		return nil, classify(err)
	}
	c, err := claimsFromMap(mc)
	if err != nil {
		return nil, err
	}
	c.Issuer = is.Issuer.Issuer
	if c.Role == "" {
		c.Role = tp.DefaultRole
	}
	return c, nil
}

// key returns the issuer's key kid, fetching the key set when it is
// stale, or when kid is new and the last try is old enough.
func (is *issuer) key(tp *ThirdParty, kid string, now time.Time) (*SetKey, error) {
	is.mu.Lock()
	defer is.mu.Unlock()
	k, ok := is.keys[kid]
	stale := now.Sub(is.fetched) >= tp.Refresh
	if (stale || !ok) && now.Sub(is.tried) >= minFetchGap {
		is.tried = now
		keys, err := tp.fetch(is.Issuer)
		if err != nil && is.keys == nil {
			return nil, fmt.Errorf("keys of %s: %w", is.Issuer.Issuer, err)
		}
		// A failed refresh keeps the keys already known.
		if err == nil {
			is.keys, is.fetched = keys, now
		}
		k, ok = is.keys[kid]
	}
	if !ok {
		return nil, fmt.Errorf("unknown kid %q for %s", kid, is.Issuer.Issuer)
	}
	return k, nil
}

// fetch reads the issuer's key set: the JWKS address given, else the
// discovery document's jwks_uri.
func (tp *ThirdParty) fetch(is Issuer) (map[string]*SetKey, error) {
	ctx, cancel := context.WithTimeout(context.Background(), tp.Client.Timeout)
	defer cancel()
	jwksURL := is.JWKSURL
	if jwksURL == "" {
		var disc struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := tp.getJSON(ctx, strings.TrimSuffix(is.Issuer, "/")+"/.well-known/openid-configuration", &disc); err != nil {
			return nil, err
		}
		if disc.JWKSURI == "" {
			return nil, errors.New("discovery document without jwks_uri")
		}
		if err := checkURL(disc.JWKSURI); err != nil {
			return nil, fmt.Errorf("jwks_uri: %w", err)
		}
		jwksURL = disc.JWKSURI
	}
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := tp.getJSON(ctx, jwksURL, &doc); err != nil {
		return nil, err
	}
	keys := map[string]*SetKey{}
	for _, raw := range doc.Keys {
		var j jwk
		if json.Unmarshal(raw, &j) != nil {
			continue
		}
		// Only the public part is of use; keys of other types or uses
		// (encryption) are skipped, as a verifier skips them.
		j.D, j.KeyOps, j.Status = "", nil, ""
		if j.Kty == "oct" {
			continue
		}
		if k, err := j.parse(); err == nil {
			keys[k.KID] = k
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("the key set has no RSA or P-256 key with a kid")
	}
	return keys, nil
}

func (tp *ThirdParty) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	res, err := tp.Client.Do(req)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", u, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("fetch %s: %s", u, res.Status)
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, maxDocBytes)).Decode(v); err != nil {
		return fmt.Errorf("fetch %s: %w", u, err)
	}
	return nil
}
