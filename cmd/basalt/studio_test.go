package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/pgtest"
)

// checkDevStudio: `basalt dev` serves Studio on loopback, open without
// signing in, and names it in the banner and in status --json.
func checkDevStudio(t *testing.T, st map[string]any, banner string) {
	t.Helper()
	url, _ := st["studio_url"].(string)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("studio_url = %q", url)
	}
	if !strings.Contains(banner, "Studio URL: "+url) {
		t.Errorf("banner lacks the Studio URL:\n%s", banner)
	}
	res, err := http.Get(url + "/api/session")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), `"open":true`) {
		t.Errorf("studio session under dev: %d %s", res.StatusCode, body)
	}
	res, err = http.Get(url + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	_ = res.Body.Close()
	if !strings.Contains(string(body), "<title>Basalt Studio</title>") {
		t.Errorf("studio app not served: %s", body)
	}
}

// TestServeStudio: under serve, Studio is on only when configured, the
// operator named by the environment signs in, and nothing opens without.
func TestServeStudio(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	port, studioPort := freePort(t), freePort(t)
	vars := map[string]string{
		"DATABASE_URL": db.AdminURL, "BASALT_AUTHENTICATOR_URL": db.UserURL, "JWT_SECRET": strings.Repeat("k", 40),
		"BASALT_API_PORT": port, "BASALT_APP_PORT": "0", "BASALT_HOST": "127.0.0.1", "BASALT_SQL_DIR": t.TempDir(),
		"BASALT_STUDIO_PORT": studioPort, "BASALT_STUDIO_OPERATOR_EMAIL": "ops@example.com",
		"BASALT_STUDIO_OPERATOR_PASSWORD": "a long enough password", "BASALT_STUDIO_SECURE_COOKIE": "false",
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuf{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve"}, out, out, func(k string) string { return vars[k] }) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve stop: %v\n%s", err, out.String())
		}
	}()
	studio := "http://127.0.0.1:" + studioPort
	deadline := time.Now().Add(time.Minute)
	for {
		res, err := http.Get(studio + "/api/session")
		if err == nil {
			_ = res.Body.Close()
			if res.StatusCode == 401 {
				break // up, and asking to sign in
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("studio not up under serve:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	res, err := http.Post(studio+"/api/session", "application/json", strings.NewReader(`{"email":"ops@example.com","password":"a long enough password"}`))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		CSRFToken string `json:"csrf_token"`
		Open      bool   `json:"open"`
	}
	_ = json.NewDecoder(res.Body).Decode(&s)
	_ = res.Body.Close()
	if res.StatusCode != 200 || s.CSRFToken == "" || s.Open || len(res.Cookies()) != 1 {
		t.Fatalf("sign in: %d %+v", res.StatusCode, s)
	}
	req, _ := http.NewRequest("GET", studio+"/pg/schemas", nil)
	req.AddCookie(res.Cookies()[0])
	req.Header.Set("X-CSRF-Token", s.CSRFToken)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	var schemas []struct{ Name string }
	if res.StatusCode != 200 || json.Unmarshal(body, &schemas) != nil || !strings.Contains(fmt.Sprint(schemas), "{public}") {
		t.Fatalf("schemas: %d %s", res.StatusCode, body)
	}
	checkStudioAPIKeys(t, studio, "http://127.0.0.1:"+port, res.Request.Cookies()[0], s.CSRFToken)
}

// checkStudioAPIKeys: a key created in Studio works on REST; one rotated
// there gives a new key that works while the old one is refused, on REST,
// at once; one revoked there is refused.
func checkStudioAPIKeys(t *testing.T, studio, api string, cookie *http.Cookie, csrf string) {
	t.Helper()
	call := func(method, path, body string, want int) (out struct {
		ID     string `json:"id"`
		APIKey string `json:"api_key"`
	}) {
		t.Helper()
		req, _ := http.NewRequest(method, studio+path, strings.NewReader(body))
		req.AddCookie(cookie)
		req.Header.Set("X-CSRF-Token", csrf)
		req.Header.Set("Origin", studio)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if res.StatusCode != want || json.Unmarshal(b, &out) != nil {
			t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
		}
		return out
	}
	rest := func(key string) (int, string) {
		t.Helper()
		// The database has no table: PostgREST's 404 for one says the key
		// was accepted.
		req, _ := http.NewRequest("GET", api+"/rest/v1/notes", nil)
		req.Header.Set("apikey", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		return res.StatusCode, strings.TrimSpace(string(b))
	}
	const refused = `{"message":"Invalid API key"}`
	// A change reaches the gateway by NOTIFY: wait for it.
	await := func(key string, valid bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			status, body := rest(key)
			if valid == (status == 404) && valid == (body != refused) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("REST with %.20s…: %d %s, want valid=%v", key, status, body, valid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	made := call("POST", "/api/keys", `{"type":"publishable","name":"mobile"}`, http.StatusCreated)
	await(made.APIKey, true)
	rotated := call("POST", "/api/keys/"+made.ID+"/rotate", "", http.StatusOK)
	await(made.APIKey, false)
	await(rotated.APIKey, true)
	call("DELETE", "/api/keys/"+rotated.ID, "", http.StatusOK)
	await(rotated.APIKey, false)
	if status, body := rest(made.APIKey); status != 401 || body != refused {
		t.Fatalf("the rotated-out key: %d %s", status, body)
	}
}

// TestStudioUserCommands: operators are added (password from stdin),
// listed, given a new password and removed on DATABASE_URL.
func TestStudioUserCommands(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	getenv := func(k string) string { return map[string]string{"DATABASE_URL": db.AdminURL}[k] }
	studio := func(stdin string, args ...string) (string, error) {
		var out bytes.Buffer
		err := cmdStudio(context.Background(), args, strings.NewReader(stdin), &out, &out, getenv)
		return out.String(), err
	}
	if out, err := studio("a long enough password\n", "user", "add", "Ops@Example.com"); err != nil || !strings.Contains(out, "operator ops@example.com added") {
		t.Fatalf("add: %q %v", out, err)
	}
	if _, err := studio("a long enough password\n", "user", "add", "ops@example.com"); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("second add: %v", err)
	}
	if _, err := studio("short\n", "user", "add", "two@example.com"); err == nil || !strings.Contains(err.Error(), "at least 12") {
		t.Fatalf("short password: %v", err)
	}
	if _, err := studio("", "user", "add", "two@example.com"); err == nil || !strings.Contains(err.Error(), "no password") {
		t.Fatalf("no password: %v", err)
	}
	if out, err := studio("", "user", "list"); err != nil || strings.TrimSpace(out) != "ops@example.com" {
		t.Fatalf("list: %q %v", out, err)
	}
	var before string
	_ = db.Admin.QueryRow(context.Background(), `SELECT password_hash FROM basalt.studio_operators`).Scan(&before)
	if !strings.HasPrefix(before, "$2a$12$") {
		t.Fatalf("stored password %q is not a bcrypt hash", before)
	}
	if _, err := studio("another long password\n", "user", "passwd", "ops@example.com"); err != nil {
		t.Fatal(err)
	}
	if _, err := studio("", "user", "remove", "ops@example.com"); err != nil {
		t.Fatal(err)
	}
	if out, _ := studio("", "user", "list"); strings.TrimSpace(out) != "" {
		t.Fatalf("list after remove: %q", out)
	}
	if _, err := studio("", "user", "frobnicate", "x@example.com"); err == nil {
		t.Fatal("unknown verb accepted")
	}
}
