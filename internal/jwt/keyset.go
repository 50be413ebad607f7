package jwt

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"

	gojwt "github.com/golang-jwt/jwt/v5"
)

// SetKey is one key of a signing key set given as a JWK set, the shape of
// GoTrue's GOTRUE_JWT_KEYS: an RSA (RS256), P-256 (ES256) or symmetric
// (HS256) key with a kid. Exactly one key of a set has "sign" in its
// key_ops: access tokens are signed with it. Every key verifies tokens
// whose kid names it, and the public keys are published in the JWKS.
//
// A key may also carry a "status", Supabase's signing key states (see
// Status): the signing key is in use, a standby key is published before it
// signs, a previously used one still verifies the tokens it signed, a
// revoked one neither verifies nor is published.
type SetKey struct {
	KID    string
	Alg    string // RS256, ES256 or HS256
	Sign   bool   // the signing key of the set
	Status Status

	private crypto.Signer    // nil for a public or symmetric key
	public  crypto.PublicKey // nil for a symmetric key
	secret  []byte           // symmetric keys only
}

// jwk is a JSON Web Key as RFC 7517/7518 spell it; only the members Basalt
// reads.
type jwk struct {
	Kty    string   `json:"kty"`
	Kid    string   `json:"kid"`
	Alg    string   `json:"alg"`
	KeyOps []string `json:"key_ops"`
	Status Status   `json:"status"`
	// RSA
	N, E, D, P, Q string
	// EC
	Crv, X, Y string
	// symmetric
	K string
}

// ParseKeySet reads a JWK set: a JSON array of keys (GOTRUE_JWT_KEYS) or a
// {"keys": [...]} document.
func ParseKeySet(data []byte) ([]*SetKey, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var doc struct {
			Keys []json.RawMessage `json:"keys"`
		}
		if err2 := json.Unmarshal(data, &doc); err2 != nil || doc.Keys == nil {
			return nil, fmt.Errorf("JWK set: want a JSON array of keys: %w", err)
		}
		raw = doc.Keys
	}
	var set []*SetKey
	signing, stated := 0, 0
	for i, r := range raw {
		var j jwk
		if err := json.Unmarshal(r, &j); err != nil {
			return nil, fmt.Errorf("JWK set: key %d: %w", i, err)
		}
		k, err := j.parse()
		if err != nil {
			return nil, fmt.Errorf("JWK set: key %d (kid %q): %w", i, j.Kid, err)
		}
		for _, o := range set {
			if o.KID == k.KID {
				return nil, fmt.Errorf("JWK set: kid %q appears twice", k.KID)
			}
		}
		if k.Sign {
			signing++
		}
		if j.Status != "" {
			stated++
		}
		set = append(set, k)
	}
	// GoTrue's rule: one key signs, the others only verify. A set whose
	// keys all state their status may have none in use yet (standby keys
	// beside the legacy key that still signs).
	if signing > 1 || signing == 0 && (len(set) == 0 || stated < len(set)) {
		return nil, fmt.Errorf("JWK set: want exactly one key with \"sign\" in key_ops, found %d", signing)
	}
	return set, nil
}

func (j jwk) parse() (*SetKey, error) {
	if j.Kid == "" {
		return nil, errors.New("no kid")
	}
	k := &SetKey{KID: j.Kid, Sign: slices.Contains(j.KeyOps, "sign"), Status: j.Status}
	switch {
	case j.Status == "" && k.Sign:
		k.Status = StatusInUse
	case j.Status == "":
		k.Status = StatusPrevious
	case !j.Status.valid():
		return nil, fmt.Errorf("unknown status %q (want in_use, standby, previously_used or revoked)", j.Status)
	case k.Sign != (j.Status == StatusInUse):
		// GoTrue reads key_ops alone: the two must tell the same story.
		return nil, fmt.Errorf("status %s, but \"sign\" %s key_ops", j.Status, map[bool]string{true: "in", false: "not in"}[k.Sign])
	}
	var err error
	switch j.Kty {
	case "RSA":
		k.Alg = "RS256"
		err = j.rsa(k)
	case "EC":
		k.Alg = "ES256"
		err = j.ec(k)
	case "oct":
		k.Alg = "HS256"
		if k.secret, err = b64(j.K); err == nil && len(k.secret) < 32 {
			err = errors.New("symmetric key shorter than 32 bytes")
		}
	default:
		return nil, fmt.Errorf("unsupported kty %q (want RSA, EC or oct)", j.Kty)
	}
	if err != nil {
		return nil, err
	}
	if j.Alg != "" && j.Alg != k.Alg {
		return nil, fmt.Errorf("alg %q does not fit a %s key (want %s)", j.Alg, j.Kty, k.Alg)
	}
	if k.Sign && k.private == nil && k.secret == nil {
		return nil, errors.New(`"sign" in key_ops but no private key`)
	}
	return k, nil
}

func (j jwk) rsa(k *SetKey) error {
	ne, err := bigs(j.N, j.E)
	if err != nil {
		return err
	}
	n, e := ne[0], ne[1]
	if !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 {
		return errors.New("bad RSA exponent")
	}
	pub := &rsa.PublicKey{N: n, E: int(e.Int64())}
	k.public = pub
	if j.D == "" {
		return nil
	}
	d, err := bigs(j.D)
	if err != nil {
		return err
	}
	// Signing needs the primes, which every private JWK carries.
	pq, err := bigs(j.P, j.Q)
	if err != nil {
		return fmt.Errorf("RSA private key without p and q: %w", err)
	}
	priv := &rsa.PrivateKey{PublicKey: *pub, D: d[0], Primes: pq}
	if err := priv.Validate(); err != nil {
		return fmt.Errorf("RSA key: %w", err)
	}
	priv.Precompute()
	k.private = priv
	return nil
}

func (j jwk) ec(k *SetKey) error {
	if j.Crv != "P-256" {
		return fmt.Errorf("unsupported curve %q (want P-256)", j.Crv)
	}
	xy, err := bigs(j.X, j.Y)
	if err != nil {
		return err
	}
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: xy[0], Y: xy[1]}
	if !pub.Curve.IsOnCurve(pub.X, pub.Y) {
		return errors.New("EC point is not on P-256")
	}
	k.public = pub
	if j.D == "" {
		return nil
	}
	d, err := bigs(j.D)
	if err != nil {
		return err
	}
	k.private = &ecdsa.PrivateKey{PublicKey: *pub, D: d[0]}
	return nil
}

func b64(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("missing key member")
	}
	return base64.RawURLEncoding.DecodeString(s)
}

// bigs decodes base64url big-endian integers.
func bigs(ss ...string) ([]*big.Int, error) {
	out := make([]*big.Int, len(ss))
	for i, s := range ss {
		b, err := b64(s)
		if err != nil {
			return nil, err
		}
		out[i] = new(big.Int).SetBytes(b)
	}
	return out, nil
}

// signingKey is the key of the set that signs access tokens, or nil.
func (k *Keys) signingKey() *SetKey {
	for _, s := range k.Set {
		if s.Sign {
			return s
		}
	}
	return nil
}

// verifyKey is the key a token of algorithm alg is checked with: the set's
// key its kid names, the ES256 key of keys.json, the shared secret for
// HS256 without a known kid, or, for an asymmetric token without a kid,
// every key of that algorithm.
func (k *Keys) verifyKey(alg, kid string) (any, error) {
	for _, s := range k.Set {
		if kid != "" && s.KID == kid {
			if s.Status == StatusRevoked {
				return nil, fmt.Errorf("kid %q was revoked", kid)
			}
			if s.Alg != alg {
				return nil, fmt.Errorf("kid %q is a %s key, token is %s", kid, s.Alg, alg)
			}
			if s.secret != nil {
				return s.secret, nil
			}
			return s.public, nil
		}
	}
	switch alg {
	case "HS256":
		return k.Secret, nil
	case "ES256":
		if kid != "" && k.EC != nil && kid == k.KID {
			return &k.EC.PublicKey, nil
		}
	}
	if kid != "" {
		return nil, fmt.Errorf("unknown kid %q", kid)
	}
	var keys []gojwt.VerificationKey
	if alg == "ES256" && k.EC != nil {
		keys = append(keys, &k.EC.PublicKey)
	}
	for _, s := range k.Set {
		if s.Alg == alg && s.public != nil && s.Status != StatusRevoked {
			keys = append(keys, s.public)
		}
	}
	switch len(keys) {
	case 0:
		return nil, fmt.Errorf("no %s key configured", alg)
	case 1:
		return keys[0], nil
	}
	return gojwt.VerificationKeySet{Keys: keys}, nil
}

// publicJWK renders a set key for the JWKS document; symmetric keys are
// never published.
func (s *SetKey) publicJWK() (JWK, bool) {
	if s.Status == StatusRevoked {
		return JWK{}, false
	}
	j := JWK{Kid: s.KID, Alg: s.Alg, Use: "sig", KeyOps: []string{"verify"}, Ext: true}
	switch p := s.public.(type) {
	case *rsa.PublicKey:
		j.Kty = "RSA"
		j.N = base64.RawURLEncoding.EncodeToString(p.N.Bytes())
		j.E = base64.RawURLEncoding.EncodeToString(big.NewInt(int64(p.E)).Bytes())
	case *ecdsa.PublicKey:
		j.Kty, j.Crv = "EC", "P-256"
		j.X = base64.RawURLEncoding.EncodeToString(p.X.FillBytes(make([]byte, 32)))
		j.Y = base64.RawURLEncoding.EncodeToString(p.Y.FillBytes(make([]byte, 32)))
	default:
		return JWK{}, false
	}
	return j, true
}
