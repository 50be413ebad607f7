package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
)

// apiKeyEpoch is the issue time of API keys derived by `basalt serve` from
// JWT_SECRET alone. A fixed time makes every node derive the same keys.
var apiKeyEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// keysFromConfig builds the serve key set: BASALT_KEYS_FILE, overlaid by
// JWT_SECRET, JWT_PRIVATE_KEY, JWT_KEY_ID, JWT_KEYS, JWT_SIGNING_ALG,
// ANON_KEY, SERVICE_ROLE_KEY, PUBLISHABLE_KEY and SECRET_KEY.
func keysFromConfig(cfg config.Config) (*jwt.Keys, error) {
	// Order of precedence: the file gives a complete set, variables override
	// single parts (an operator rotating only the secret, say).
	k := &jwt.Keys{}
	if cfg.KeysFile != "" {
		var err error
		if k, err = jwt.Load(cfg.KeysFile); err != nil {
			return nil, fmt.Errorf("BASALT_KEYS_FILE: %w", err)
		}
	}
	if cfg.JWTSecret != "" {
		k.Secret = []byte(cfg.JWTSecret)
	}
	if cfg.JWTPrivateKey != "" {
		ec, err := jwt.ParseECPrivateKeyPEM(cfg.JWTPrivateKey)
		if err != nil {
			return nil, fmt.Errorf("JWT_PRIVATE_KEY: %w", err)
		}
		k.EC = ec
		k.KID = cfg.JWTKeyID
		if k.KID == "" {
			// A stable kid from the public key, so nodes agree without config.
			sum := sha256.Sum256(append(ec.X.Bytes(), ec.Y.Bytes()...))
			k.KID = base64.RawURLEncoding.EncodeToString(sum[:12])
		}
	}
	if cfg.JWTKeys != "" {
		// A key set's signing key decides how access tokens are signed,
		// unless JWT_SIGNING_ALG says otherwise (then Validate refuses).
		k.SigningAlg = ""
		if err := k.SetKeySet([]byte(cfg.JWTKeys)); err != nil {
			return nil, fmt.Errorf("JWT_KEYS: %w", err)
		}
	}
	// Access tokens are ES256 when a key pair is available: clients can then
	// verify them from the JWKS without the shared secret.
	switch {
	case cfg.JWTSigningAlg != "":
		k.SigningAlg = cfg.JWTSigningAlg
	case k.SigningAlg == "" && k.EC != nil:
		k.SigningAlg = "ES256"
	case k.SigningAlg == "":
		k.SigningAlg = "HS256"
	}
	if cfg.AnonKey != "" {
		k.AnonKey = cfg.AnonKey
	}
	if cfg.ServiceRoleKey != "" {
		k.ServiceRoleKey = cfg.ServiceRoleKey
	}
	if cfg.PublishableKey != "" {
		k.PublishableKey = cfg.PublishableKey
	}
	if cfg.SecretKey != "" {
		k.SecretKey = cfg.SecretKey
	}
	if err := k.Validate(); err != nil {
		return nil, err
	}
	var err error
	if k.ThirdParty, err = thirdPartyFromConfig(cfg.ThirdParty); err != nil {
		return nil, err
	}
	derived, err := k.APIKey("anon", apiKeyEpoch)
	if err != nil {
		return nil, err
	}
	if k.AnonKey == "" {
		k.AnonKey = derived
	}
	if k.ServiceRoleKey == "" {
		if k.ServiceRoleKey, err = k.APIKey("service_role", apiKeyEpoch); err != nil {
			return nil, err
		}
	}
	// Keys supplied by the operator must verify against the secret and name
	// the right role, or every client request would fail later.
	for role, key := range map[string]string{"anon": k.AnonKey, "service_role": k.ServiceRoleKey} {
		c, err := k.Verify(key, time.Now())
		if err != nil {
			return nil, fmt.Errorf("%s key does not verify with the configured JWT secret: %w", role, err)
		}
		if c.Role != role {
			return nil, fmt.Errorf("%s key carries role %q", role, c.Role)
		}
	}
	return k, nil
}

// cmdKeys prints the project keys of the data dir (creating them on first
// use), or with "rotate" replaces them with fresh ones; `keys api` manages
// the publishable and secret keys in the database.
func cmdKeys(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	if len(args) > 0 && args[0] == "api" {
		return keysAPI(ctx, args[1:], stdout, getenv)
	}
	if len(args) > 0 && args[0] == "signing" {
		return keysSigning(args[1:], stdout, os.Stderr, getenv)
	}
	fs := newFlags("keys")
	asJSON := fs.Bool("json", false, "print JSON")
	dataDir := fs.String("data-dir", "", "data directory")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	cfg, err := config.Load(config.Dev, envWith(getenv, map[string]string{"BASALT_DATA_DIR": *dataDir}))
	if err != nil {
		return err
	}
	path := filepath.Join(cfg.DataDir, "keys.json")
	var k *jwt.Keys
	switch fs.Arg(0) {
	case "":
		if k, _, err = jwt.LoadOrCreate(path, time.Now()); err != nil {
			return err
		}
	case "rotate":
		// The running dev holds the old keys in memory; rotating under it
		// would leave the banner, keys.json and the server disagreeing.
		if _, err := readState(cfg.DataDir); err == nil {
			return errors.New("stop basalt dev before rotating keys")
		}
		if old, err := os.ReadFile(path); err == nil {
			if err := os.WriteFile(path+".old", old, 0o600); err != nil {
				return err
			}
		}
		if k, err = jwt.Generate(time.Now()); err != nil {
			return err
		}
		if err := k.Save(path); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "new keys written to %s (previous ones kept in %s.old); tokens signed with the old keys no longer verify\n", path, path)
	default:
		return usageError{fmt.Sprintf("unknown keys command %q (want rotate)", fs.Arg(0))}
	}
	out := map[string]any{
		"jwt_secret":       string(k.Secret),
		"anon_key":         k.AnonKey,
		"service_role_key": k.ServiceRoleKey,
		"publishable_key":  k.PublishableKey,
		"secret_key":       k.SecretKey,
		"kid":              inUseKID(k),
		"signing_alg":      k.SigningAlg,
		"jwks":             k.JWKS(),
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(stdout, "%18s: %s\n", "JWT secret", k.Secret)
	fmt.Fprintf(stdout, "%18s: %s (%s)\n", "signing key id", inUseKID(k), k.SigningAlg)
	fmt.Fprintf(stdout, "%18s: %s\n", "anon key", k.AnonKey)
	fmt.Fprintf(stdout, "%18s: %s\n", "service_role key", k.ServiceRoleKey)
	fmt.Fprintf(stdout, "%18s: %s\n", "Publishable key", k.PublishableKey)
	fmt.Fprintf(stdout, "%18s: %s\n", "Secret key", k.SecretKey)
	return nil
}

// inUseKID is the kid of the key that signs access tokens ("" for HS256).
func inUseKID(k *jwt.Keys) string {
	for _, s := range k.SigningKeys() {
		if s.Status == jwt.StatusInUse {
			return s.KID
		}
	}
	return ""
}

// thirdPartyFromConfig builds the trusted third-party issuers from
// THIRD_PARTY_AUTH_*: the issuers listed, and those the provider settings
// name, spelled as each provider writes its tokens' "iss". Nil when none.
func thirdPartyFromConfig(c config.ThirdParty) (*jwt.ThirdParty, error) {
	var issuers []jwt.Issuer
	for _, entry := range c.Issuers {
		f := strings.Fields(entry)
		switch len(f) {
		case 1:
			issuers = append(issuers, jwt.Issuer{Issuer: f[0]})
		case 2:
			issuers = append(issuers, jwt.Issuer{Issuer: f[0], JWKSURL: f[1]})
		default:
			return nil, fmt.Errorf("THIRD_PARTY_AUTH_ISSUERS: %q: want an issuer URL, optionally followed by its JWKS URL", entry)
		}
	}
	if c.FirebaseProjectID != "" {
		issuers = append(issuers, jwt.Issuer{Issuer: "https://securetoken.google.com/" + c.FirebaseProjectID})
	}
	if c.Auth0Tenant != "" {
		host := c.Auth0Tenant + ".auth0.com"
		if c.Auth0TenantRegion != "" {
			host = c.Auth0Tenant + "." + c.Auth0TenantRegion + ".auth0.com"
		}
		issuers = append(issuers, jwt.Issuer{Issuer: "https://" + host + "/"})
	}
	if c.ClerkDomain != "" {
		issuers = append(issuers, jwt.Issuer{Issuer: "https://" + strings.TrimPrefix(c.ClerkDomain, "https://")})
	}
	if (c.CognitoUserPoolID == "") != (c.CognitoUserPoolRegion == "") {
		return nil, errors.New("THIRD_PARTY_AUTH_COGNITO_USER_POOL_ID and THIRD_PARTY_AUTH_COGNITO_USER_POOL_REGION go together")
	}
	if c.CognitoUserPoolID != "" {
		issuers = append(issuers, jwt.Issuer{Issuer: "https://cognito-idp." + c.CognitoUserPoolRegion + ".amazonaws.com/" + c.CognitoUserPoolID})
	}
	if c.WorkOSIssuerURL != "" {
		issuers = append(issuers, jwt.Issuer{Issuer: c.WorkOSIssuerURL})
	}
	if len(issuers) == 0 {
		return nil, nil
	}
	tp, err := jwt.NewThirdParty(issuers, c.DefaultRole, c.JWKSRefresh)
	if err != nil {
		return nil, fmt.Errorf("THIRD_PARTY_AUTH: %w", err)
	}
	return tp, nil
}
