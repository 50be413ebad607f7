// Package jwt holds the project's signing keys and signs and verifies the
// JWTs Basalt deals in: user access tokens (ES256 with a kid by default, HS256
// optional, or the signing key of a JWK set such as GoTrue's
// GOTRUE_JWT_KEYS: RS256, ES256 or HS256) and the long-lived anon and
// service_role API keys (HS256, the shape of Supabase's legacy keys). It
// also serves the JWKS document.
package jwt

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
)

// Keys is the project's key material.
type Keys struct {
	// Secret is the HS256 secret; it signs API keys and, when SigningAlg is
	// HS256, access tokens.
	Secret []byte
	// EC is the ES256 key pair access tokens are signed with by default.
	EC *ecdsa.PrivateKey
	// KID identifies EC in token headers and the JWKS.
	KID string
	// SigningAlg is "ES256" (default) or "HS256" for access tokens; with a
	// key set, the algorithm of its signing key.
	SigningAlg string
	// Set is an asymmetric (or extra symmetric) key set given as JWKs:
	// its signing key signs access tokens, every key verifies, the public
	// keys are in the JWKS. KeySetJSON is the set as given, for keys.json.
	Set        []*SetKey
	KeySetJSON json.RawMessage
	// AnonKey and ServiceRoleKey are the long-lived project API keys.
	AnonKey, ServiceRoleKey string
	// PublishableKey and SecretKey are the opaque new-format keys
	// (sb_publishable_…, sb_secret_…) that the gateway swaps for the JWTs.
	PublishableKey, SecretKey string
	// ThirdParty, when set, lists the external issuers whose tokens
	// VerifyAccess trusts (Supabase's third-party auth).
	ThirdParty *ThirdParty
}

// file is the on-disk shape of keys.json.
type file struct {
	JWTSecret      string `json:"jwt_secret"`
	ES256Private   string `json:"es256_private_key"` // PKCS#8 PEM
	KID            string `json:"kid"`
	SigningAlg     string `json:"signing_alg"`
	AnonKey        string `json:"anon_key"`
	ServiceRoleKey string `json:"service_role_key"`
	PublishableKey string `json:"publishable_key"`
	SecretKey      string `json:"secret_key"`
	// JWTKeys is a JWK set, GoTrue's GOTRUE_JWT_KEYS format (a JSON array
	// of private JWKs, exactly one with "sign" in key_ops).
	JWTKeys json.RawMessage `json:"jwt_keys,omitempty"`
}

// apiKeyLifetime is how long generated API keys stay valid.
const apiKeyLifetime = 10 * 365 * 24 * time.Hour

// Generate creates fresh keys: a random 40-byte secret, a P-256 key with a
// random kid, API keys derived from the secret, and new-format opaque keys.
func Generate(now time.Time) (*Keys, error) {
	k := &Keys{SigningAlg: "ES256"}
	k.Secret = []byte(randomToken(40))
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate ES256 key: %w", err)
	}
	k.EC = ec
	k.KID = randomToken(16)
	k.PublishableKey = "sb_publishable_" + randomToken(32)
	k.SecretKey = "sb_secret_" + randomToken(32)
	if err := k.DeriveAPIKeys(now); err != nil {
		return nil, err
	}
	return k, nil
}

// DeriveAPIKeys (re)signs the anon and service_role keys with Secret.
func (k *Keys) DeriveAPIKeys(now time.Time) error {
	var err error
	if k.AnonKey, err = k.APIKey("anon", now); err != nil {
		return err
	}
	k.ServiceRoleKey, err = k.APIKey("service_role", now)
	return err
}

// APIKey signs a long-lived project key for role, shaped like Supabase's.
func (k *Keys) APIKey(role string, now time.Time) (string, error) {
	claims := gojwt.MapClaims{
		"iss":  "basalt",
		"role": role,
		"iat":  now.Unix(),
		"exp":  now.Add(apiKeyLifetime).Unix(),
	}
	return k.SignHS256(claims)
}

func randomToken(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	max := big.NewInt(int64(len(alphabet)))
	for i := range b {
		v, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic(err) // crypto/rand never fails on Linux
		}
		b[i] = alphabet[v.Int64()]
	}
	return string(b)
}

// LoadOrCreate reads keys.json at path, creating it (0600) on first use.
func LoadOrCreate(path string, now time.Time) (*Keys, bool, error) {
	k, err := Load(path)
	if err == nil {
		return k, false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, false, err
	}
	k, err = Generate(now)
	if err != nil {
		return nil, false, err
	}
	return k, true, k.Save(path)
}

// Load reads keys.json.
func Load(path string) (*Keys, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	k := &Keys{Secret: []byte(f.JWTSecret), KID: f.KID, SigningAlg: f.SigningAlg, AnonKey: f.AnonKey,
		ServiceRoleKey: f.ServiceRoleKey, PublishableKey: f.PublishableKey, SecretKey: f.SecretKey}
	if f.ES256Private != "" {
		if k.EC, err = ParseECPrivateKeyPEM(f.ES256Private); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if len(f.JWTKeys) > 0 {
		if err := k.SetKeySet(f.JWTKeys); err != nil {
			return nil, fmt.Errorf("%s: jwt_keys: %w", path, err)
		}
	}
	if k.SigningAlg == "" {
		k.SigningAlg = "ES256"
	}
	return k, k.Validate()
}

// Save writes keys.json with mode 0600.
func (k *Keys) Save(path string) error {
	f := file{JWTSecret: string(k.Secret), KID: k.KID, SigningAlg: k.SigningAlg, AnonKey: k.AnonKey,
		ServiceRoleKey: k.ServiceRoleKey, PublishableKey: k.PublishableKey, SecretKey: k.SecretKey, JWTKeys: k.KeySetJSON}
	if k.EC != nil {
		der, err := x509.MarshalPKCS8PrivateKey(k.EC)
		if err != nil {
			return err
		}
		f.ES256Private = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ParseECPrivateKeyPEM parses a PKCS#8 or SEC1 P-256 private key.
func ParseECPrivateKeyPEM(s string) (*ecdsa.PrivateKey, error) {
	block, _ := pem.Decode([]byte(s))
	if block == nil {
		return nil, errors.New("ES256 private key: no PEM block")
	}
	if key, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		ec, ok := key.(*ecdsa.PrivateKey)
		if !ok {
			return nil, errors.New("ES256 private key: not an ECDSA key")
		}
		return ec, nil
	}
	return x509.ParseECPrivateKey(block.Bytes)
}

// SetKeySet takes a JWK set (see ParseKeySet) as the project's key set;
// without a signing algorithm chosen, tokens take its signing key's.
func (k *Keys) SetKeySet(raw []byte) error {
	set, err := ParseKeySet(raw)
	if err != nil {
		return err
	}
	k.Set, k.KeySetJSON = set, append(json.RawMessage(nil), raw...)
	if sk := k.signingKey(); k.SigningAlg == "" && sk != nil {
		k.SigningAlg = sk.Alg
	}
	return nil
}

// Validate rejects key sets that cannot sign what they are asked to.
func (k *Keys) Validate() error {
	if len(k.Secret) < 32 {
		return errors.New("jwt secret must be at least 32 characters")
	}
	if sk := k.signingKey(); sk != nil {
		// A key set decides how access tokens are signed.
		if k.SigningAlg != sk.Alg {
			return fmt.Errorf("signing algorithm %q, but the signing key %q of the key set is %s", k.SigningAlg, sk.KID, sk.Alg)
		}
		return nil
	}
	switch k.SigningAlg {
	case "HS256":
	case "ES256":
		if k.EC == nil {
			return errors.New("signing algorithm ES256 needs an ES256 private key")
		}
		if k.KID == "" {
			return errors.New("ES256 key needs a kid")
		}
	default:
		return fmt.Errorf("unsupported signing algorithm %q (want ES256 or HS256)", k.SigningAlg)
	}
	return nil
}

// Sign signs claims as an access token with the configured algorithm: the
// key set's signing key when there is one (its kid in the header).
func (k *Keys) Sign(claims gojwt.Claims) (string, error) {
	if sk := k.signingKey(); sk != nil {
		return sk.SignToken(claims)
	}
	if k.SigningAlg == "HS256" {
		return k.SignHS256(claims)
	}
	t := gojwt.NewWithClaims(gojwt.SigningMethodES256, claims)
	t.Header["kid"] = k.KID
	return t.SignedString(k.EC)
}

// SignHS256 signs claims with the shared secret (no kid, like legacy keys).
func (k *Keys) SignHS256(claims gojwt.Claims) (string, error) {
	return gojwt.NewWithClaims(gojwt.SigningMethodHS256, claims).SignedString(k.Secret)
}

// JWK is one public key of the JWKS document.
type JWK struct {
	Kty    string   `json:"kty"`
	Crv    string   `json:"crv,omitempty"`
	X      string   `json:"x,omitempty"`
	Y      string   `json:"y,omitempty"`
	N      string   `json:"n,omitempty"`
	E      string   `json:"e,omitempty"`
	Kid    string   `json:"kid"`
	Alg    string   `json:"alg"`
	Use    string   `json:"use"`
	KeyOps []string `json:"key_ops"`
	Ext    bool     `json:"ext"`
}

// JWKS returns the public keys document. It never includes the HS secret.
func (k *Keys) JWKS() map[string][]JWK {
	keys := []JWK{}
	if k.EC != nil {
		size := (k.EC.Curve.Params().BitSize + 7) / 8
		keys = append(keys, JWK{
			Kty: "EC", Crv: "P-256", Kid: k.KID, Alg: "ES256", Use: "sig", KeyOps: []string{"verify"}, Ext: true,
			X: base64.RawURLEncoding.EncodeToString(k.EC.X.FillBytes(make([]byte, size))),
			Y: base64.RawURLEncoding.EncodeToString(k.EC.Y.FillBytes(make([]byte, size))),
		})
	}
	// What verifiers need: the key in use first, then the standby keys (so
	// caches hold them before they sign), then the previously used ones.
	for _, st := range []Status{StatusInUse, StatusStandby, StatusPrevious} {
		for _, s := range k.Set {
			if s.Status != st {
				continue
			}
			if j, ok := s.publicJWK(); ok {
				keys = append(keys, j)
			}
		}
	}
	return map[string][]JWK{"keys": keys}
}

// Fingerprint is a short non-secret id for the key set, for logs.
func (k *Keys) Fingerprint() string {
	kid := k.KID
	if sk := k.signingKey(); sk != nil {
		kid = sk.KID
	}
	return (hex.EncodeToString([]byte(kid)) + "00000000")[:8]
}
