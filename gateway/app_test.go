package gateway_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/gateway"
)

func TestApp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"index.html":                "<!doctype html><title>app</title>",
		"sw.js":                     "self.addEventListener('install', () => {})",
		"favicon.ico":               "ico",
		"assets/index-BxK3f9aQ.js":  "console.log(1)",
		"nested/index.html":         "<p>nested</p>",
		"assets/vendor-Qz81mXk2.js": strings.Repeat("export const track = 'Lagos Sunrise';\n", 2000),
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rt := gateway.RuntimeConfig{SupabaseURL: "http://127.0.0.1:54321", SupabaseAnonKey: "anon.jwt", SupabasePublishableKey: "sb_publishable_x"}
	srv := httptest.NewServer(gateway.NewApp(gateway.AppConfig{Dir: dir, Runtime: rt}, nil))
	t.Cleanup(srv.Close)

	tests := []struct {
		name, method, path string
		wantStatus         int
		wantBody           string // prefix
		wantCache          string
		wantType           string // prefix
	}{
		{"index", "GET", "/", 200, "<!doctype html>", "no-cache", "text/html"},
		{"client route falls back to index", "GET", "/tracks/42", 200, "<!doctype html>", "no-cache", "text/html"},
		{"deep client route", "GET", "/artist/a/b?tab=x", 200, "<!doctype html>", "no-cache", "text/html"},
		{"hashed asset cached for a year", "GET", "/assets/index-BxK3f9aQ.js", 200, "console.log", "public, max-age=31536000, immutable", "text/javascript"},
		{"service worker never cached", "GET", "/sw.js", 200, "self.add", "no-cache", "text/javascript"},
		{"unhashed file revalidated", "GET", "/favicon.ico", 200, "ico", "no-cache", ""},
		{"missing asset is 404, not the shell", "GET", "/assets/missing-12345678.js", 404, "404 page not found", "", ""},
		{"directory index", "GET", "/nested/", 200, "<p>nested</p>", "no-cache", "text/html"},
		{"traversal stays inside", "GET", "/../../etc/passwd", 200, "<!doctype html>", "no-cache", "text/html"},
		{"runtime config as JS", "GET", "/env.js", 200, `window.__BASALT_ENV__ = {"SUPABASE_URL":"http://127.0.0.1:54321"`, "no-store", "text/javascript"},
		{"writes refused", "POST", "/", 405, "method not allowed", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.wantStatus || !strings.HasPrefix(string(body), tt.wantBody) {
				t.Errorf("%s %s = %d %q, want %d %q…", tt.method, tt.path, res.StatusCode, body, tt.wantStatus, tt.wantBody)
			}
			if tt.wantCache != "" && res.Header.Get("Cache-Control") != tt.wantCache {
				t.Errorf("Cache-Control = %q, want %q", res.Header.Get("Cache-Control"), tt.wantCache)
			}
			if !strings.HasPrefix(res.Header.Get("Content-Type"), tt.wantType) {
				t.Errorf("Content-Type = %q, want %q…", res.Header.Get("Content-Type"), tt.wantType)
			}
		})
	}

	t.Run("config.json", func(t *testing.T) {
		t.Parallel()
		res, err := http.Get(srv.URL + "/config.json")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var got gateway.RuntimeConfig
		if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(rt, got); diff != "" {
			t.Errorf("config.json (-want +got):\n%s", diff)
		}
	})

	t.Run("large assets are gzipped for clients that accept it", func(t *testing.T) {
		t.Parallel()
		want := files["assets/vendor-Qz81mXk2.js"]
		for _, accept := range []string{"gzip", ""} {
			req, _ := http.NewRequest("GET", srv.URL+"/assets/vendor-Qz81mXk2.js", nil)
			if accept != "" {
				// Set by hand, the transport leaves the body compressed.
				req.Header.Set("Accept-Encoding", accept)
			} else {
				req.Header.Set("Accept-Encoding", "identity")
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(res.Body)
			_ = res.Body.Close()
			body := raw
			if accept == "gzip" {
				if res.Header.Get("Content-Encoding") != "gzip" {
					t.Fatalf("Accept-Encoding gzip: Content-Encoding = %q", res.Header.Get("Content-Encoding"))
				}
				zr, err := gzip.NewReader(bytes.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				body, _ = io.ReadAll(zr)
				if len(raw)*4 > len(want) {
					t.Errorf("compressed to %d of %d bytes, want at least 4x smaller", len(raw), len(want))
				}
			} else if res.Header.Get("Content-Encoding") != "" {
				t.Errorf("identity: Content-Encoding = %q, want none", res.Header.Get("Content-Encoding"))
			}
			if string(body) != want {
				t.Errorf("Accept-Encoding %q: body differs from the file", accept)
			}
			if !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
				t.Errorf("Vary = %q, want Accept-Encoding so caches keep both forms", res.Header.Get("Vary"))
			}
			if got := res.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
				t.Errorf("Cache-Control = %q", got)
			}
		}
	})

	t.Run("no build yet", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(gateway.NewApp(gateway.AppConfig{Dir: filepath.Join(dir, "absent"), Runtime: rt}, nil))
		defer srv.Close()
		res, err := http.Get(srv.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != 404 {
			t.Errorf("status %d, want 404 explaining there is no build", res.StatusCode)
		}
		res, err = http.Get(srv.URL + "/env.js")
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("env.js without a build: %d, want 200", res.StatusCode)
		}
	})
}
