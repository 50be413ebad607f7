package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// TestSigningKeysFromEnvironment: a key set with states, given to basalt
// serve in JWT_KEYS as GoTrue takes GOTRUE_JWT_KEYS, verified end to end.
// Auth signs sessions with the key in use (RS256, its kid); REST, storage,
// realtime and auth accept them; tokens of the previously used key (minted
// before a rotation) and of the standby key are accepted too, so a rotation
// signs nobody out; the revoked key's tokens are refused everywhere; the
// JWKS lists the keys in use, on standby and previously used, not the
// revoked one.
func TestSigningKeysFromEnvironment(t *testing.T) {
	t.Parallel()
	gen := func(alg string, st jwt.Status) *jwt.SetKey {
		k, err := jwt.GenerateSetKey(alg, st)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	inUse, standby := gen("RS256", jwt.StatusInUse), gen("ES256", jwt.StatusStandby)
	previous, revoked := gen("ES256", jwt.StatusPrevious), gen("RS256", jwt.StatusRevoked)
	set, err := jwt.MarshalKeySet([]*jwt.SetKey{revoked, previous, standby, inUse})
	if err != nil {
		t.Fatal(err)
	}

	db := pgtest.NewEmptyDB(t)
	sqlDir := filepath.Join(t.TempDir(), "sql")
	if err := os.MkdirAll(filepath.Join(sqlDir, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sqlDir, "app", "0001_notes.sql"), []byte(`
CREATE TABLE public.notes (id int PRIMARY KEY, owner uuid);
GRANT SELECT ON public.notes TO authenticated;
ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY "own notes" ON public.notes FOR SELECT TO authenticated USING (owner = auth.uid());
INSERT INTO public.notes VALUES (1, '00000000-0000-0000-0000-00000000000a');`), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	secret := strings.Repeat("e", 40)
	vars := map[string]string{
		"DATABASE_URL": db.AdminURL, "BASALT_AUTHENTICATOR_URL": db.UserURL, "JWT_SECRET": secret, "JWT_KEYS": string(set),
		"BASALT_API_PORT": port, "BASALT_APP_PORT": "0", "BASALT_HOST": "127.0.0.1", "BASALT_SQL_DIR": sqlDir,
		"BASALT_DATA_DIR": t.TempDir(), "STORAGE_FILE_DIR": t.TempDir(), "BASALT_AUTH_MAILER_AUTOCONFIRM": "true",
	}
	base, _ := startServe(t, vars)
	keys, err := keysFromConfig(config.Config{JWTSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	api := apiCaller(t, base, keys.AnonKey)
	call := func(method, path, token, body string) (int, string) {
		t.Helper()
		return api(method, path, token, "application/json", body)
	}

	// The JWKS: what verifiers need, in that order, never the revoked key.
	status, body := call("GET", "/auth/v1/.well-known/jwks.json", "", "")
	var doc struct {
		Keys []struct{ Kid, Alg string } `json:"keys"`
	}
	if err := json.Unmarshal([]byte(body), &doc); status != 200 || err != nil {
		t.Fatalf("JWKS: %d %s", status, body)
	}
	var kids []string
	for _, k := range doc.Keys {
		kids = append(kids, k.Kid)
	}
	if !slices.Equal(kids, []string{inUse.KID, standby.KID, previous.KID}) {
		t.Errorf("JWKS kids %v, want in use %s, standby %s, previous %s", kids, inUse.KID, standby.KID, previous.KID)
	}

	// A session from auth is signed with the key in use.
	status, body = call("POST", "/auth/v1/signup", "", `{"email":"keys@example.com","password":"password-123456"}`)
	var session struct {
		AccessToken string              `json:"access_token"`
		User        struct{ ID string } `json:"user"`
	}
	if err := json.Unmarshal([]byte(body), &session); status != 200 || err != nil || session.AccessToken == "" {
		t.Fatalf("signup: %d %s", status, body)
	}
	hdr, _, _ := gojwt.NewParser().ParseUnverified(session.AccessToken, gojwt.MapClaims{})
	if hdr.Header["kid"] != inUse.KID || hdr.Header["alg"] != "RS256" {
		t.Errorf("session token header %v, want RS256 with kid %s", hdr.Header, inUse.KID)
	}

	// Tokens of the other keys, as a session minted before a rotation.
	const owner = "00000000-0000-0000-0000-00000000000a"
	mint := func(k *jwt.SetKey) string {
		tok, err := k.SignToken(gojwt.MapClaims{"sub": owner, "role": "authenticated", "aud": "authenticated",
			"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	accepted := map[string]string{"in use": mint(inUse), "standby": mint(standby), "previously used": mint(previous)}
	for name, tok := range accepted {
		if s, b := call("GET", "/rest/v1/notes?select=id", tok, ""); s != 200 || b != `[{"id":1}]` {
			t.Errorf("REST with the %s key's token: %d %s", name, s, b)
		}
		if s, b := call("GET", "/storage/v1/bucket", tok, ""); s != 200 {
			t.Errorf("storage with the %s key's token: %d %s", name, s, b)
		}
		if s, b := call("POST", "/realtime/v1/api/broadcast", tok, `{"messages":[{"topic":"t","event":"e","payload":{}}]}`); s != 202 {
			t.Errorf("realtime with the %s key's token: %d %s", name, s, b)
		}
	}
	if s, b := call("GET", "/auth/v1/user", session.AccessToken, ""); s != 200 || !strings.Contains(b, session.User.ID) {
		t.Errorf("auth with its own session: %d %s", s, b)
	}

	gone := mint(revoked)
	if s, b := call("GET", "/rest/v1/notes?select=id", gone, ""); s != 401 || !strings.Contains(b, "PGRST301") {
		t.Errorf("REST with the revoked key's token: %d %s", s, b)
	}
	if s, b := call("GET", "/storage/v1/bucket", gone, ""); s < 400 {
		t.Errorf("storage with the revoked key's token: %d %s", s, b)
	}
	if s, b := call("POST", "/realtime/v1/api/broadcast", gone, `{"messages":[{"topic":"t","event":"e","payload":{}}]}`); s != 401 {
		t.Errorf("realtime with the revoked key's token: %d %s", s, b)
	}
	if s, b := call("GET", "/auth/v1/user", gone, ""); s != 403 || !strings.Contains(b, "bad_jwt") {
		t.Errorf("auth with the revoked key's token: %d %s", s, b)
	}
}

// apiCaller sends requests to base with apikey, and a bearer token when
// given; it returns the status and body.
func apiCaller(t *testing.T, base, apikey string) func(method, path, token, contentType, body string) (int, string) {
	return func(method, path, token, contentType, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("apikey", apikey)
		req.Header.Set("Content-Type", contentType)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
}

// TestKeysSigningCommand: `basalt keys signing` walks keys.json's keys
// through their states; the file is then what serve loads (BASALT_KEYS_FILE).
func TestKeysSigningCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := mapEnv(map[string]string{"BASALT_DATA_DIR": dir})
	keysCmd := func(args ...string) string {
		t.Helper()
		var out strings.Builder
		if err := run(context.Background(), append([]string{"keys", "signing"}, args...), &out, io.Discard, env); err != nil {
			t.Fatalf("keys signing %v: %v", args, err)
		}
		return out.String()
	}
	states := func() map[string]jwt.Status {
		t.Helper()
		var list []struct {
			KID    string     `json:"kid"`
			Status jwt.Status `json:"status"`
		}
		if err := json.Unmarshal([]byte(keysCmd("list", "--json")), &list); err != nil {
			t.Fatal(err)
		}
		m := map[string]jwt.Status{}
		for _, k := range list {
			m[k.KID] = k.Status
		}
		return m
	}
	first := states()
	if len(first) != 1 {
		t.Fatalf("a new data dir's keys: %v, want its one ES256 key in use", first)
	}
	var legacy string
	for kid := range first {
		legacy = kid
	}
	var added struct{ KID string }
	if err := json.Unmarshal([]byte(keysCmd("add", "--alg", "RS256", "--json")), &added); err != nil {
		t.Fatal(err)
	}
	if got := states(); got[legacy] != jwt.StatusInUse || got[added.KID] != jwt.StatusStandby {
		t.Fatalf("after add: %v", got)
	}
	keysCmd("rotate")
	if got := states(); got[legacy] != jwt.StatusPrevious || got[added.KID] != jwt.StatusInUse {
		t.Fatalf("after rotate: %v", got)
	}
	err := run(context.Background(), []string{"keys", "signing", "revoke", added.KID}, io.Discard, io.Discard, env)
	if !errors.Is(err, jwt.ErrKeyInUse) {
		t.Errorf("revoking the key in use: %v", err)
	}
	keysCmd("revoke", legacy)
	if got := states(); got[legacy] != jwt.StatusRevoked || got[added.KID] != jwt.StatusInUse {
		t.Fatalf("after revoke: %v", got)
	}
	k, err := keysFromConfig(config.Config{KeysFile: filepath.Join(dir, "keys.json")})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := k.Sign(gojwt.MapClaims{"role": "authenticated", "exp": time.Now().Add(time.Hour).Unix()})
	if err != nil || k.SigningAlg != "RS256" {
		t.Fatalf("serve's keys sign with %s: %v", k.SigningAlg, err)
	}
	hdr, _, _ := gojwt.NewParser().ParseUnverified(tok, gojwt.MapClaims{})
	if hdr.Header["kid"] != added.KID {
		t.Errorf("serve signs with kid %v, want %s", hdr.Header["kid"], added.KID)
	}
}
