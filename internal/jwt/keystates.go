package jwt

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	gojwt "github.com/golang-jwt/jwt/v5"
)

// Status is where a signing key is in its life, as Supabase's JWT signing
// keys go: standby → in use → previously used → revoked. Rotating makes
// the standby key the signer and the signer a previously used key, whose
// tokens keep verifying until they expire, so nobody is signed out; the
// JWKS lists the keys in use, on standby and previously used, so verifiers
// know a key before it signs and until its tokens are gone. A revoked key
// verifies nothing and is no longer published.
type Status string

// The states, spelled as in the key set's "status" member.
const (
	StatusInUse    Status = "in_use"
	StatusStandby  Status = "standby"
	StatusPrevious Status = "previously_used"
	StatusRevoked  Status = "revoked"
)

func (s Status) valid() bool {
	switch s {
	case StatusInUse, StatusStandby, StatusPrevious, StatusRevoked:
		return true
	}
	return false
}

// Errors of the key state changes.
var (
	ErrNoSuchKey   = errors.New("no signing key has that kid")
	ErrNoStandby   = errors.New("no standby key to rotate to: add one first")
	ErrKeyInUse    = errors.New("the key in use cannot be revoked: rotate to another key first")
	ErrManyStandby = errors.New("several standby keys: name the one to rotate to")
)

// GenerateSetKey makes a new private signing key: ES256 (P-256) or RS256
// (2048-bit RSA), with a random kid, in the given state.
func GenerateSetKey(alg string, st Status) (*SetKey, error) {
	k := &SetKey{KID: randomToken(16), Alg: alg, Status: st, Sign: st == StatusInUse}
	switch alg {
	case "ES256":
		ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generate ES256 key: %w", err)
		}
		k.private, k.public = ec, &ec.PublicKey
	case "RS256":
		r, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, fmt.Errorf("generate RS256 key: %w", err)
		}
		k.private, k.public = r, &r.PublicKey
	default:
		return nil, fmt.Errorf("unsupported signing key algorithm %q (want ES256 or RS256)", alg)
	}
	return k, nil
}

// privateJWK renders a set key with its private parts, as keys.json and
// JWT_KEYS hold it, status and key_ops telling the same story.
func (s *SetKey) privateJWK() map[string]any {
	enc := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	ops := []string{"verify"}
	if s.Status == StatusInUse {
		ops = []string{"sign", "verify"}
	}
	j := map[string]any{"kid": s.KID, "alg": s.Alg, "key_ops": ops, "status": s.Status}
	switch {
	case s.secret != nil:
		j["kty"], j["k"] = "oct", enc(s.secret)
	case s.Alg == "RS256":
		p := s.public.(*rsa.PublicKey)
		j["kty"], j["n"], j["e"] = "RSA", enc(p.N.Bytes()), enc(big.NewInt(int64(p.E)).Bytes())
		if r, ok := s.private.(*rsa.PrivateKey); ok {
			r.Precompute()
			j["d"], j["p"], j["q"] = enc(r.D.Bytes()), enc(r.Primes[0].Bytes()), enc(r.Primes[1].Bytes())
			j["dp"], j["dq"], j["qi"] = enc(r.Precomputed.Dp.Bytes()), enc(r.Precomputed.Dq.Bytes()), enc(r.Precomputed.Qinv.Bytes())
		}
	default:
		p := s.public.(*ecdsa.PublicKey)
		j["kty"], j["crv"] = "EC", "P-256"
		j["x"], j["y"] = enc(p.X.FillBytes(make([]byte, 32))), enc(p.Y.FillBytes(make([]byte, 32)))
		if e, ok := s.private.(*ecdsa.PrivateKey); ok {
			j["d"] = enc(e.D.FillBytes(make([]byte, 32)))
		}
	}
	return j
}

// SignToken signs claims with this key, its kid in the header, whatever its
// state: Keys.Sign is what signs access tokens.
func (s *SetKey) SignToken(claims gojwt.Claims) (string, error) {
	t := gojwt.NewWithClaims(gojwt.GetSigningMethod(s.Alg), claims)
	t.Header["kid"] = s.KID
	if s.secret != nil {
		return t.SignedString(s.secret)
	}
	if s.private == nil {
		return "", fmt.Errorf("key %s has no private part", s.KID)
	}
	return t.SignedString(s.private)
}

// MarshalKeySet renders keys with their private parts and states as a JWK
// set in GoTrue's GOTRUE_JWT_KEYS form (JWT_KEYS, keys.json's jwt_keys).
func MarshalKeySet(set []*SetKey) ([]byte, error) {
	out := make([]map[string]any, len(set))
	for i, s := range set {
		out[i] = s.privateJWK()
	}
	return json.Marshal(out)
}

// setKeys replaces the key set and what keys.json keeps of it; the
// signing algorithm follows the key in use.
func (k *Keys) setKeys(set []*SetKey) error {
	raw, err := MarshalKeySet(set)
	if err != nil {
		return err
	}
	k.Set, k.KeySetJSON = set, raw
	if sk := k.signingKey(); sk != nil {
		k.SigningAlg = sk.Alg
	}
	return k.Validate()
}

// legacyToSet moves keys.json's own ES256 key into the key set with status
// st, so that it has a state like the others.
func (k *Keys) legacyToSet(st Status) []*SetKey {
	set := append([]*SetKey(nil), k.Set...)
	if k.EC != nil {
		set = append(set, &SetKey{KID: k.KID, Alg: "ES256", Status: st, Sign: st == StatusInUse, private: k.EC, public: &k.EC.PublicKey})
		k.EC, k.KID = nil, ""
	}
	return set
}

// AddStandby adds a new key (ES256 or RS256) on standby: published in the
// JWKS at once, signing nothing until Rotate. keys.json's own ES256 key
// joins the set as the key in use when it signs today.
func (k *Keys) AddStandby(alg string) (*SetKey, error) {
	nk, err := GenerateSetKey(alg, StatusStandby)
	if err != nil {
		return nil, err
	}
	st := StatusPrevious
	if k.legacyInUse() {
		st = StatusInUse
	}
	return nk, k.setKeys(append(k.legacyToSet(st), nk))
}

// Rotate makes the standby key kid (or the only standby key, for "") the
// one that signs access tokens; the key that signed them is previously
// used from then on, so the tokens it signed keep verifying until they
// expire.
func (k *Keys) Rotate(kid string) (*SetKey, error) {
	var next *SetKey
	for _, s := range k.Set {
		if s.Status != StatusStandby || kid != "" && s.KID != kid {
			continue
		}
		if next != nil {
			return nil, ErrManyStandby
		}
		next = s
	}
	if next == nil {
		if kid != "" {
			return nil, fmt.Errorf("%q: %w on standby", kid, ErrNoSuchKey)
		}
		return nil, ErrNoStandby
	}
	set := k.legacyToSet(StatusPrevious)
	for _, s := range set {
		if s.Status == StatusInUse {
			s.Status, s.Sign = StatusPrevious, false
		}
	}
	next.Status, next.Sign = StatusInUse, true
	return next, k.setKeys(set)
}

// Revoke revokes the standby or previously used key kid: tokens it signed
// no longer verify, and the JWKS no longer lists it.
func (k *Keys) Revoke(kid string) (*SetKey, error) {
	if k.EC != nil && k.KID == kid {
		if k.legacyInUse() {
			return nil, ErrKeyInUse
		}
		// keys.json's own key, no longer signing: give it a state first.
		k.Set = k.legacyToSet(StatusPrevious)
	}
	for _, s := range k.Set {
		if s.KID != kid {
			continue
		}
		if s.Status == StatusInUse {
			return nil, ErrKeyInUse
		}
		s.Status, s.Sign = StatusRevoked, false
		return s, k.setKeys(k.Set)
	}
	return nil, fmt.Errorf("%q: %w", kid, ErrNoSuchKey)
}

// legacyInUse reports whether keys.json's own ES256 key signs access tokens.
func (k *Keys) legacyInUse() bool {
	return k.EC != nil && k.signingKey() == nil && k.SigningAlg == "ES256"
}

// SigningKeys lists every signing key with its state: keys.json's own
// ES256 key (in use unless a key of the set is) and the set's keys.
func (k *Keys) SigningKeys() []*SetKey {
	var out []*SetKey
	if k.EC != nil {
		st := StatusPrevious
		if k.legacyInUse() {
			st = StatusInUse
		}
		out = append(out, &SetKey{KID: k.KID, Alg: "ES256", Status: st, Sign: st == StatusInUse, public: &k.EC.PublicKey})
	}
	return append(out, k.Set...)
}
