package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/auth/testidp"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// TestThirdPartyAuthEndToEnd: basalt serve trusts the JWTs of an external
// OIDC issuer named in THIRD_PARTY_AUTH_ISSUERS (a real OIDC provider,
// found by discovery): its users read their own rows through REST under
// RLS on auth.jwt()->>'sub' (an id that is no UUID, as Clerk's or
// Firebase's), upload into storage as owner_id, broadcast through realtime;
// a token without a role claim is anon; auth refuses them all, as GoTrue
// trusts its own keys only.
func TestThirdPartyAuthEndToEnd(t *testing.T) {
	t.Parallel()
	idp, err := testidp.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Close() })

	db := pgtest.NewEmptyDB(t)
	sqlDir := filepath.Join(t.TempDir(), "sql")
	if err := os.MkdirAll(filepath.Join(sqlDir, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sqlDir, "app", "0001_notes.sql"), []byte(`
CREATE TABLE public.notes (id int PRIMARY KEY, owner text NOT NULL, body text);
GRANT SELECT ON public.notes TO anon, authenticated;
ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY "own notes" ON public.notes FOR SELECT TO authenticated USING (owner = auth.jwt()->>'sub');
CREATE POLICY "public notes" ON public.notes FOR SELECT TO anon USING (owner = 'everyone');
INSERT INTO public.notes VALUES (1, 'user_2aAbB', 'mine'), (2, 'user_other', 'theirs'), (3, 'everyone', 'for all');
INSERT INTO storage.buckets (id, name) VALUES ('docs', 'docs');
CREATE POLICY "own uploads" ON storage.objects FOR INSERT TO authenticated
  WITH CHECK (bucket_id = 'docs' AND owner_id = auth.jwt()->>'sub');`), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	secret := strings.Repeat("t", 40)
	base, _ := startServe(t, map[string]string{
		"DATABASE_URL": db.AdminURL, "BASALT_AUTHENTICATOR_URL": db.UserURL, "JWT_SECRET": secret,
		"THIRD_PARTY_AUTH_ISSUERS": idp.Issuer(),
		"BASALT_API_PORT":          port, "BASALT_APP_PORT": "0", "BASALT_HOST": "127.0.0.1", "BASALT_SQL_DIR": sqlDir,
		"BASALT_DATA_DIR": t.TempDir(), "STORAGE_FILE_DIR": t.TempDir(),
	})
	keys, err := keysFromConfig(config.Config{JWTSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	call := apiCaller(t, base, keys.AnonKey)
	mint := func(claims gojwt.MapClaims) string {
		t.Helper()
		claims["iss"], claims["exp"], claims["iat"] = idp.Issuer(), time.Now().Add(time.Hour).Unix(), time.Now().Unix()
		tok, err := idp.Sign(claims)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	user := mint(gojwt.MapClaims{"sub": "user_2aAbB", "role": "authenticated", "email": "a@example.com"})

	if s, b := call("GET", "/rest/v1/notes?select=id,body&order=id", user, "application/json", ""); s != 200 || b != `[{"id":1,"body":"mine"}]` {
		t.Errorf("REST as the third-party user: %d %s", s, b)
	}
	if s, b := call("POST", "/storage/v1/object/docs/note.txt", user, "text/plain", "hello"); s != 200 {
		t.Errorf("storage upload as the third-party user: %d %s", s, b)
	}
	var owner string
	if err := db.Admin.QueryRow(t.Context(), `SELECT owner_id FROM storage.objects WHERE bucket_id = 'docs' AND name = 'note.txt'`).Scan(&owner); err != nil || owner != "user_2aAbB" {
		t.Errorf("the object's owner_id: %q %v", owner, err)
	}
	if s, b := call("POST", "/realtime/v1/api/broadcast", user, "application/json", `{"messages":[{"topic":"t","event":"e","payload":{}}]}`); s != 202 {
		t.Errorf("realtime broadcast as the third-party user: %d %s", s, b)
	}
	// No role claim: anon, as Supabase documents for its integrations.
	noRole := mint(gojwt.MapClaims{"sub": "user_2aAbB"})
	if s, b := call("GET", "/rest/v1/notes?select=id", noRole, "application/json", ""); s != 200 || b != `[{"id":3}]` {
		t.Errorf("REST with a token without a role claim: %d %s", s, b)
	}
	// Auth trusts its own tokens only.
	if s, b := call("GET", "/auth/v1/user", user, "application/json", ""); s != 403 || !strings.Contains(b, "bad_jwt") {
		t.Errorf("auth with a third-party token: %d %s", s, b)
	}
	// Another issuer signing with the same key is not trusted.
	other, _ := idp.Sign(gojwt.MapClaims{"iss": "https://elsewhere.example", "sub": "user_2aAbB", "role": "authenticated",
		"exp": time.Now().Add(time.Hour).Unix()})
	if s, b := call("GET", "/rest/v1/notes?select=id", other, "application/json", ""); s != 401 || !strings.Contains(b, "PGRST301") {
		t.Errorf("REST with a token of an issuer not on the list: %d %s", s, b)
	}
}

// TestThirdPartyFromConfig: the provider settings name the issuers as each
// provider writes its tokens' iss, as Supabase's [auth.third_party.*] do.
func TestThirdPartyFromConfig(t *testing.T) {
	t.Parallel()
	tp, err := thirdPartyFromConfig(config.ThirdParty{
		Issuers:           []string{"https://idp.example.com", "https://other.example.com https://keys.example.com/jwks"},
		FirebaseProjectID: "my-app", Auth0Tenant: "acme", Auth0TenantRegion: "eu", ClerkDomain: "clerk.acme.dev",
		CognitoUserPoolID: "eu-west-1_AbC", CognitoUserPoolRegion: "eu-west-1", WorkOSIssuerURL: "https://api.workos.com/user_management/client_1",
	})
	if err != nil {
		t.Fatal(err)
	}
	got := tp.Issuers()
	slices.Sort(got)
	want := []string{"https://acme.eu.auth0.com/", "https://api.workos.com/user_management/client_1", "https://clerk.acme.dev",
		"https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC", "https://idp.example.com", "https://other.example.com",
		"https://securetoken.google.com/my-app"}
	if !slices.Equal(got, want) {
		t.Errorf("issuers %v, want %v", got, want)
	}
	if tp, err := thirdPartyFromConfig(config.ThirdParty{}); tp != nil || err != nil {
		t.Errorf("no settings: %v %v", tp, err)
	}
	for name, c := range map[string]config.ThirdParty{
		"http issuer":            {Issuers: []string{"http://idp.example.com"}},
		"three fields":           {Issuers: []string{"https://a https://b https://c"}},
		"cognito without region": {CognitoUserPoolID: "x"},
	} {
		if _, err := thirdPartyFromConfig(c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
