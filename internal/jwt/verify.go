package jwt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
)

// Claims is a verified token's payload: the fields Basalt branches on, plus
// the whole claim set as JSON for request.jwt.claims.
type Claims struct {
	Role      string
	Subject   string
	SessionID string
	Expires   time.Time // zero when the token has no exp
	Raw       json.RawMessage
	Map       map[string]any
	// Issuer is the trusted third-party issuer that signed the token
	// (ThirdParty); empty for the project's own tokens.
	Issuer string
}

// Errors returned by Verify, so each service can render its own wire error.
var (
	ErrMalformed = errors.New("malformed token")
	ErrSignature = errors.New("invalid signature")
	ErrExpired   = errors.New("token is expired")
	// ErrNotYetValid: nbf is later than now plus the leeway.
	ErrNotYetValid = errors.New("token is not valid yet")
	// ErrIssuedInFuture: iat is later than now plus the leeway, a token
	// minted by a clock that runs ahead (or minted to be used later).
	ErrIssuedInFuture = errors.New("token used before issued")
)

// Leeway is the clock skew allowed on exp, nbf and iat: PostgREST's 30
// seconds, so a token one service accepts every other service accepts too.
const Leeway = 30 * time.Second

// Verify checks signature and time claims (exp, nbf, iat, with Leeway) and
// returns the claims. A token's kid picks the key of the key set (or the
// ES256 key) it is checked with; HS256 tokens without a known kid are tried
// with the secret, as GoTrue and PostgREST do; an RS256 or ES256 token
// without a kid is tried with every key of its algorithm.
//
// The time rules are PostgREST's: each claim, when present, may be off by
// 30 seconds of clock skew, and an iat in the future beyond that is
// refused. GoTrue alone would take any iat, but a token "issued" an hour
// from now is either a clock fault or a token minted for later use, and
// every service verifies through here.
func (k *Keys) Verify(token string, now time.Time) (*Claims, error) {
	if strings.Count(token, ".") != 2 {
		return nil, fmt.Errorf("%w: expected 3 parts in JWT; got %d", ErrMalformed, strings.Count(token, ".")+1)
	}
	mc := gojwt.MapClaims{}
	parser := gojwt.NewParser(
		gojwt.WithValidMethods([]string{"HS256", "ES256", "RS256"}),
		gojwt.WithLeeway(Leeway),
		gojwt.WithIssuedAt(),
		gojwt.WithTimeFunc(func() time.Time { return now }),
		gojwt.WithJSONNumber(),
	)
	_, err := parser.ParseWithClaims(token, mc, func(t *gojwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		return k.verifyKey(t.Method.Alg(), kid)
	})
	if err != nil {
		return nil, classify(err)
	}
	return claimsFromMap(mc)
}

// VerifyAccess checks an access token for the resource servers (REST,
// storage, realtime, functions): the project's own, as Verify, or one of a
// trusted third-party issuer (ThirdParty), whose Claims say so in Issuer.
// Auth takes the project's own tokens only, as GoTrue does.
func (k *Keys) VerifyAccess(token string, now time.Time) (*Claims, error) {
	if strings.Count(token, ".") == 2 {
		if is := k.ThirdParty.trusts(token); is != nil {
			return k.ThirdParty.verify(is, token, now)
		}
	}
	return k.Verify(token, now)
}

// classify maps the JWT library's error to Verify's categories.
func classify(err error) error {
	switch {
	case errors.Is(err, gojwt.ErrTokenExpired):
		return fmt.Errorf("%w: %v", ErrExpired, err)
	case errors.Is(err, gojwt.ErrTokenNotValidYet):
		return fmt.Errorf("%w: %v", ErrNotYetValid, err)
	case errors.Is(err, gojwt.ErrTokenUsedBeforeIssued):
		return fmt.Errorf("%w: %v", ErrIssuedInFuture, err)
	case errors.Is(err, gojwt.ErrTokenMalformed):
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	default:
		return fmt.Errorf("%w: %v", ErrSignature, err)
	}
}

// ParseUnverified decodes a token's claims without checking the signature,
// for tokens already verified (or for diagnostics).
func ParseUnverified(token string) (*Claims, error) {
	mc := gojwt.MapClaims{}
	p := gojwt.NewParser(gojwt.WithJSONNumber())
	if _, _, err := p.ParseUnverified(token, mc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return claimsFromMap(mc)
}

func claimsFromMap(mc gojwt.MapClaims) (*Claims, error) {
	raw, err := json.Marshal(mc)
	if err != nil {
		return nil, fmt.Errorf("encode claims: %w", err)
	}
	c := &Claims{Raw: raw, Map: mc}
	c.Role, _ = mc["role"].(string)
	c.Subject, _ = mc["sub"].(string)
	c.SessionID, _ = mc["session_id"].(string)
	if exp, err := mc.GetExpirationTime(); err == nil && exp != nil {
		c.Expires = exp.Time
	}
	return c, nil
}

// Caller is what the gateway learned about a request's credentials: the
// effective bearer token and, when it verified, its claims. Services render
// Err in their own wire format (GoTrue, PostgREST, Storage).
type Caller struct {
	Token  string  // effective bearer token; empty when the request carried none
	Claims *Claims // set when Token verified
	Err    error   // set when Token did not verify
	// APIKeyRole is the role of the project key the request presented
	// ("anon" or "service_role"), empty when none was needed.
	APIKeyRole string
	// Source says where Token came from.
	Source TokenSource
}

// TokenSource is where the gateway took a request's bearer token from.
type TokenSource uint8

// Token sources.
const (
	// SourceNone: no token (no Authorization, no usable API key).
	SourceNone TokenSource = iota
	// SourceAuthorization: the client's own Authorization header.
	SourceAuthorization
	// SourceNewKey: the client sent no Authorization; Token is the JWT an
	// sb_ API key stands for.
	SourceNewKey
	// SourceLegacyKey: the client sent no Authorization; Token is its API
	// key, a JWT itself. Supabase's gateway passes such a key on without the
	// Bearer scheme, so GoTrue sees no bearer token (PostgREST and Storage
	// still read it as the caller's role).
	SourceLegacyKey
)

type callerKey struct{}

// NewContext returns ctx carrying c.
func NewContext(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// FromContext returns the Caller the gateway stored, or an empty one.
func FromContext(ctx context.Context) *Caller {
	if c, ok := ctx.Value(callerKey{}).(*Caller); ok {
		return c
	}
	return &Caller{}
}
