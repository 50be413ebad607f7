package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pgtest"
	gojwt "github.com/golang-jwt/jwt/v5"
	"math/big"
)

func TestMain(m *testing.M) { pgtest.Main(m, pgtest.WithCron()) }

func TestServe(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t) // serve applies the migrations itself
	port := freePort(t)
	secret := strings.Repeat("k", 40)
	vars := map[string]string{
		"DATABASE_URL": db.AdminURL, "BASALT_AUTHENTICATOR_URL": db.UserURL, "JWT_SECRET": secret,
		"BASALT_API_PORT": port, "BASALT_APP_PORT": "0", "BASALT_HOST": "127.0.0.1", "BASALT_SQL_DIR": t.TempDir(),
		// Nothing may be written into the checkout (functions' cache, file storage).
		"BASALT_DATA_DIR": t.TempDir(), "STORAGE_FILE_DIR": t.TempDir(),
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuf{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve"}, out, out, func(k string) string { return vars[k] }) }()
	base := "http://127.0.0.1:" + port
	deadline := time.Now().Add(time.Minute)
	for {
		res, err := http.Get(base + "/health")
		if err == nil {
			_ = res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		select {
		case err := <-done:
			cancel()
			t.Fatalf("serve exited: %v\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("serve not healthy:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The platform migrations ran against DATABASE_URL.
	var roles int
	if err := db.Admin.QueryRow(ctx, `SELECT count(*) FROM basalt.schema_migrations WHERE source = 'platform'`).Scan(&roles); err != nil || roles < 2 {
		t.Errorf("platform migrations recorded: %d (%v)", roles, err)
	}
	// Keys derived from JWT_SECRET alone are accepted by the gateway.
	keys, err := keysFromConfig(config.Config{JWTSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", base+"/rest/v1/x", nil)
	req.Header.Set("apikey", keys.AnonKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode == http.StatusUnauthorized {
		t.Errorf("derived anon key refused: %s", body)
	}
	// /metrics serves the gateway's series and both pools' statistics.
	restStatus := res.StatusCode
	res, err = http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	_ = res.Body.Close()
	for _, want := range []string{
		`basalt_db_pool_max_connections{pool="admin"} 10`,
		`basalt_db_pool_max_connections{pool="user"} 10`,
		`basalt_http_requests_total{method="GET",service="rest",status="` + strconv.Itoa(restStatus),
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve stop: %v\n%s", err, out.String())
	}
}

func TestServeConfigErrors(t *testing.T) {
	t.Parallel()
	err := run(context.Background(), []string{"serve"}, io.Discard, io.Discard, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "DATABASE_URL is required") || !strings.Contains(err.Error(), "JWT_SECRET") {
		t.Errorf("serve without configuration: %v", err)
	}
	vars := map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1:1/x", "JWT_SECRET": strings.Repeat("k", 40),
		"OTEL_TRACES_EXPORTER": "zipkin"}
	err = run(context.Background(), []string{"serve"}, io.Discard, io.Discard, func(k string) string { return vars[k] })
	if err == nil || !strings.Contains(err.Error(), "OTEL_TRACES_EXPORTER") {
		t.Errorf("serve with an unknown trace exporter: %v", err)
	}
	// Bad settings of the binary, of every service and of the app are all
	// named in one refusal, before any connection is tried.
	bad := map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1:1/x", "JWT_SECRET": "short",
		"BASALT_READ_REPLICA_MAX_LAG": "xyz", "REST_MAX_BODY_BYTES": "abc", "REST_DB_MAX_ROWS": "many",
		"STORAGE_FILE_SIZE_LIMIT": "huge", "STORAGE_BACKEND": "tape", "FUNCTIONS_TIMEOUT": "-1s",
		"BACKLINE_PAYMENT_SANDBOX": "maybe",
		// auth: values that do not parse and values it cannot use, under
		// both of its prefixes, all named by the variable that was set.
		"BASALT_AUTH_RATE_LIMIT_OTP": "lots", "GOTRUE_JWT_EXP": "soon", "BASALT_AUTH_DISABLE_SIGNUP": "maybe",
		"GOTRUE_SITE_URL": "not a url", "BASALT_AUTH_MAILER_OTP_LENGTH": "4", "GOTRUE_BCRYPT_COST": "99"}
	err = run(context.Background(), []string{"serve"}, io.Discard, io.Discard, func(k string) string { return bad[k] })
	for name := range bad {
		if name == "DATABASE_URL" {
			continue
		}
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("the refusal does not name %s: %v", name, err)
		}
	}
}

func TestKeysFromConfig(t *testing.T) {
	t.Parallel()
	gen, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	secret := string(gen.Secret)
	other := strings.Repeat("o", 40)
	foreign, _ := (&jwt.Keys{Secret: []byte(other), SigningAlg: "HS256"}).APIKey("anon", time.Now())
	swapped, _ := gen.APIKey("service_role", time.Now())
	tests := []struct {
		name    string
		cfg     config.Config
		check   func(t *testing.T, k *jwt.Keys)
		wantErr string
	}{
		{name: "secret only: HS256, derived keys stable across nodes", cfg: config.Config{JWTSecret: secret},
			check: func(t *testing.T, k *jwt.Keys) {
				again, _ := keysFromConfig(config.Config{JWTSecret: secret})
				if k.SigningAlg != "HS256" || k.AnonKey != again.AnonKey || k.ServiceRoleKey != again.ServiceRoleKey {
					t.Errorf("alg %s, anon keys equal %v", k.SigningAlg, k.AnonKey == again.AnonKey)
				}
			}},
		{name: "keys supplied", cfg: config.Config{JWTSecret: secret, AnonKey: gen.AnonKey, ServiceRoleKey: gen.ServiceRoleKey, PublishableKey: gen.PublishableKey},
			check: func(t *testing.T, k *jwt.Keys) {
				if k.AnonKey != gen.AnonKey || k.PublishableKey != gen.PublishableKey {
					t.Error("supplied keys not used")
				}
			}},
		{name: "ES256 private key gives a stable kid", cfg: config.Config{JWTSecret: secret, JWTPrivateKey: pemOf(t, gen)},
			check: func(t *testing.T, k *jwt.Keys) {
				again, _ := keysFromConfig(config.Config{JWTSecret: secret, JWTPrivateKey: pemOf(t, gen)})
				if k.SigningAlg != "ES256" || k.KID == "" || k.KID != again.KID || len(k.JWKS()["keys"]) != 1 {
					t.Errorf("alg %s kid %q/%q", k.SigningAlg, k.KID, again.KID)
				}
			}},
		{name: "anon key from another secret", cfg: config.Config{JWTSecret: secret, AnonKey: foreign}, wantErr: "does not verify"},
		{name: "anon key with the wrong role", cfg: config.Config{JWTSecret: secret, AnonKey: swapped}, wantErr: `carries role "service_role"`},
		{name: "bad PEM", cfg: config.Config{JWTSecret: secret, JWTPrivateKey: "nope"}, wantErr: "JWT_PRIVATE_KEY"},
		{name: "a JWK set signs access tokens with its signing key", cfg: config.Config{JWTSecret: secret, JWTKeys: rsaKeySet(t, "rsa-kid")},
			check: func(t *testing.T, k *jwt.Keys) {
				tok, err := k.Sign(gojwt.MapClaims{"role": "authenticated"})
				if err != nil || k.SigningAlg != "RS256" {
					t.Fatalf("alg %s: %v", k.SigningAlg, err)
				}
				if _, err := k.Verify(tok, time.Now()); err != nil {
					t.Error(err)
				}
				if doc, _ := json.Marshal(k.JWKS()); !strings.Contains(string(doc), `"kid":"rsa-kid"`) {
					t.Errorf("JWKS %s", doc)
				}
			}},
		{name: "a JWK set and another signing algorithm", cfg: config.Config{JWTSecret: secret, JWTKeys: rsaKeySet(t, "k"), JWTSigningAlg: "ES256"},
			wantErr: "signing key"},
		{name: "a JWK set without a signing key", cfg: config.Config{JWTSecret: secret, JWTKeys: "[]"}, wantErr: "JWT_KEYS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k, err := keysFromConfig(tt.cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, k)
		})
	}
}

// pemOf returns the PEM of k's ES256 key as keys.json stores it.
func pemOf(t *testing.T, k *jwt.Keys) string {
	t.Helper()
	path := t.TempDir() + "/keys.json"
	if err := k.Save(path); err != nil {
		t.Fatal(err)
	}
	var f struct {
		PEM string `json:"es256_private_key"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.PEM
}

func TestSetAuthenticatorPassword(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	ctx := context.Background()
	// A quote in the password must not break (or inject into) the statement.
	if err := setAuthenticatorPassword(ctx, db.Admin, "it's-a-secret"); err != nil {
		t.Fatal(err)
	}
	var set, login bool
	err := db.Admin.QueryRow(ctx, `SELECT rolpassword IS NOT NULL, rolcanlogin FROM pg_authid WHERE rolname = 'authenticator'`).Scan(&set, &login)
	if err != nil || !set || !login {
		t.Errorf("password set %v, login %v (%v)", set, login, err)
	}
}

// While migrations wait (another node holds the migration lock), the API
// port is alive but not ready; it becomes ready once they have run.
func TestServeNotReadyWhileMigrating(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The lock migrate.Up takes ("basalt" in ASCII), held on one connection.
	lock, err := pgx.Connect(ctx, db.AdminURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Close(context.Background()) })
	if _, err := lock.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(0x62617361_6c74)); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	vars := map[string]string{
		"DATABASE_URL": db.AdminURL, "BASALT_AUTHENTICATOR_URL": db.UserURL, "JWT_SECRET": strings.Repeat("k", 40),
		"BASALT_API_PORT": port, "BASALT_APP_PORT": "0", "BASALT_HOST": "127.0.0.1", "BASALT_SQL_DIR": t.TempDir(),
		"BASALT_DATA_DIR": t.TempDir(), "STORAGE_FILE_DIR": t.TempDir(),
	}
	out := &syncBuf{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve"}, out, out, func(k string) string { return vars[k] }) }()
	base := "http://127.0.0.1:" + port
	get := func(path string) (int, string) {
		res, err := http.Get(base + path)
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, strings.TrimSpace(string(b))
	}
	waitFor := func(path string, code int) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
			if c, _ := get(path); c == code {
				return
			}
			select {
			case err := <-done:
				t.Fatalf("serve exited: %v\n%s", err, out.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %s never answered %d:\n%s", path, code, out.String())
			}
		}
	}
	waitFor("/health/live", 200)
	for _, path := range []string{"/health/ready", "/health"} {
		if code, body := get(path); code != 503 || !strings.Contains(body, `"status":"starting"`) {
			t.Errorf("while migrating: GET %s = %d %s, want 503 starting", path, code, body)
		}
	}
	if code, _ := get("/rest/v1/x"); code != 503 {
		t.Errorf("while migrating: a service answered %d, want 503", code)
	}
	if _, err := lock.Exec(ctx, "SELECT pg_advisory_unlock($1)", int64(0x62617361_6c74)); err != nil {
		t.Fatal(err)
	}
	waitFor("/health/ready", 200)
	if code, body := get("/health"); code != 200 {
		t.Errorf("after migrations: /health = %d %s", code, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve stop: %v\n%s", err, out.String())
	}
}

// rsaKeySet is a one-key JWK set in GOTRUE_JWT_KEYS form.
func rsaKeySet(t *testing.T, kid string) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(i *big.Int) string { return base64.RawURLEncoding.EncodeToString(i.Bytes()) }
	b, _ := json.Marshal([]map[string]any{{
		"kty": "RSA", "kid": kid, "alg": "RS256", "key_ops": []string{"sign", "verify"},
		"n": enc(k.N), "e": enc(big.NewInt(int64(k.E))), "d": enc(k.D), "p": enc(k.Primes[0]), "q": enc(k.Primes[1]),
	}})
	return string(b)
}
