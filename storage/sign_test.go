package storage_test

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestSignedURLs(t *testing.T) {
	t.Parallel()
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			testSignedURLs(t, kind)
		})
	}
}

func testSignedURLs(t *testing.T, kind string) {
	e := newEnv(t, kind)
	e.bucket("docs", false)
	e.put(e.service, "docs", "dir/a.txt", "text/plain", []byte("signed bytes"), false)
	e.put(e.service, "docs", "b.txt", "text/plain", []byte("b"), false)

	got := e.ok(req{method: "POST", path: "/object/sign/docs/dir/a.txt", token: e.service, json: map[string]any{"expiresIn": 60}})
	signed, _ := got["signedURL"].(string)
	if !strings.HasPrefix(signed, "/object/sign/docs/dir/a.txt?token=") {
		t.Fatalf("signedURL = %q", signed)
	}
	// Plain GET, no auth; Expires instead of Cache-Control.
	rec := e.do(req{method: "GET", path: signed + "&download=a.txt"})
	if rec.Code != 200 || rec.Body.String() != "signed bytes" {
		t.Fatalf("signed download = %d %s", rec.Code, rec.Body)
	}
	if rec.Header().Get("Expires") == "" || rec.Header().Get("Cache-Control") != "" {
		t.Errorf("signed headers = %v", rec.Header())
	}
	if rec.Header().Get("Content-Disposition") == "" {
		t.Error("download name ignored")
	}
	token := signed[strings.Index(signed, "token=")+6:]
	// The token opens that object only, and only for download.
	wantErr(t, e.do(req{method: "GET", path: "/object/sign/docs/b.txt?token=" + token}), 400, "400", "InvalidSignature", "Invalid signature")
	wantErr(t, e.do(req{method: "PUT", path: "/object/upload/sign/docs/dir/a.txt?token=" + token, body: strings.NewReader("x")}),
		400, "400", "InvalidSignature", "Token is not scoped for upload")
	wantErr(t, e.do(req{method: "GET", path: "/object/sign/docs/dir/a.txt?token=" + token + "x"}),
		400, "400", "InvalidJWT", "signature verification failed")
	e.clock.add(2 * time.Minute)
	wantErr(t, e.do(req{method: "GET", path: signed}), 400, "400", "InvalidJWT", `"exp" claim timestamp check failed`)

	wantErr(t, e.do(req{method: "POST", path: "/object/sign/docs/dir/a.txt", token: e.service, json: map[string]any{}}),
		400, "400", "InvalidRequest", "body must have required property 'expiresIn'")
	wantErr(t, e.do(req{method: "POST", path: "/object/sign/docs/dir/a.txt", token: e.service, json: map[string]any{"expiresIn": 0}}),
		400, "400", "InvalidRequest", "Invalid Parameter expiresIn")
	wantErr(t, e.do(req{method: "POST", path: "/object/sign/docs/nope.txt", token: e.service, json: map[string]any{"expiresIn": 60}}),
		400, "404", "NoSuchKey", "Object not found")

	// Batch: one entry per path, missing ones carry an error.
	rec = e.do(req{method: "POST", path: "/object/sign/docs", token: e.service,
		json: map[string]any{"expiresIn": 60, "paths": []string{"b.txt", "nope.txt"}}})
	var batch []map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &batch); err != nil || len(batch) != 2 {
		t.Fatalf("batch = %d %s", rec.Code, rec.Body)
	}
	if batch[0]["path"] != "b.txt" || batch[0]["error"] != nil || batch[1]["signedURL"] != nil ||
		batch[1]["error"] != "Either the object does not exist or you do not have access to it" {
		t.Errorf("batch = %v", batch)
	}
	if rec := e.do(req{method: "GET", path: batch[0]["signedURL"].(string)}); rec.Body.String() != "b" {
		t.Errorf("batch URL serves %d %s", rec.Code, rec.Body)
	}

	// Signed upload: the token authorises one write to one path.
	got = e.ok(req{method: "POST", path: "/object/upload/sign/docs/up/new.txt", token: e.service, json: map[string]any{}})
	u, _ := got["url"].(string)
	if !strings.HasPrefix(u, "/object/upload/sign/docs/up/new.txt?token=") || got["token"] == "" {
		t.Fatalf("upload sign = %v", got)
	}
	up := func(path string) *httptest.ResponseRecorder {
		return e.do(req{method: "PUT", path: path, body: strings.NewReader("uploaded"), header: map[string]string{"Content-Type": "text/plain"}})
	}
	rec = up(u)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"Key":"docs/up/new.txt"`) {
		t.Fatalf("signed upload = %d %s", rec.Code, rec.Body)
	}
	if body := e.get(e.service, "docs", "up/new.txt", nil).Body.String(); body != "uploaded" {
		t.Errorf("signed upload stored %q", body)
	}
	wantErr(t, up(u), 400, "409", "KeyAlreadyExists", "The resource already exists")
	q, _ := url.Parse(u)
	wantErr(t, up("/object/upload/sign/docs/other.txt?"+q.RawQuery), 400, "400", "InvalidSignature", "Invalid signature")
	wantErr(t, e.do(req{method: "GET", path: "/object/sign/docs/up/new.txt?" + q.RawQuery}), 400, "400", "InvalidSignature",
		"Token is not scoped for download")

	// Upsert tokens may overwrite.
	got = e.ok(req{method: "POST", path: "/object/upload/sign/docs/up/new.txt", token: e.service, json: map[string]any{},
		header: map[string]string{"x-upsert": "true"}})
	if rec := up(got["url"].(string)); rec.Code != 200 {
		t.Errorf("upsert signed upload = %d %s", rec.Code, rec.Body)
	}
	wantErr(t, e.do(req{method: "POST", path: "/object/upload/sign/docs/up/new.txt", token: e.service, json: map[string]any{}}),
		400, "409", "KeyAlreadyExists", "The resource already exists")
}
