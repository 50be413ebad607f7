package studio

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// sourceHash is the hash studio/web/scripts/source-hash.mjs writes to
// dist/source-hash.txt: SHA-256 over "path\0sha256(content)\n" of
// index.html, package.json, package-lock.json, tsconfig.json,
// vite.config.ts and every file under src/ and public/, paths sorted.
func sourceHash(t *testing.T, root string) string {
	t.Helper()
	files := []string{"index.html", "package.json", "package-lock.json", "tsconfig.json", "vite.config.ts"}
	for _, dir := range []string{"src", "public"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(files)
	all := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		fmt.Fprintf(all, "%s\x00%s\n", f, hex.EncodeToString(sum[:]))
	}
	return hex.EncodeToString(all.Sum(nil))
}

// TestDistIsFresh fails while the committed build is older than the app's
// sources: run `just studio-build` and commit studio/dist.
func TestDistIsFresh(t *testing.T) {
	want, err := fs.ReadFile(appFS.Get(), "source-hash.txt")
	if err != nil {
		t.Fatal("studio/dist has no source-hash.txt: build it with `just studio-build`")
	}
	if got := sourceHash(t, "web"); strings.TrimSpace(string(want)) != got {
		t.Fatalf("studio/dist was built from other sources than studio/web's (built %s, sources %s): run `just studio-build` and commit studio/dist",
			strings.TrimSpace(string(want)), got)
	}
}

// TestInitialBundleSize: what the first page loads (the entry script, its
// static imports and the CSS) stays under 300 KB gzipped; the screens are
// chunks of their own.
func TestInitialBundleSize(t *testing.T) {
	html, err := fs.ReadFile(appFS.Get(), "index.html")
	if err != nil {
		t.Fatal(err)
	}
	staticImport := regexp.MustCompile(`(?:^|[;\s}])import\s*(?:[\w$\{\},*\s]+from\s*)?["']\./([^"']+\.js)["']`)
	seen := map[string]bool{}
	var visit func(string)
	visit = func(f string) {
		if seen[f] {
			return
		}
		seen[f] = true
		if !strings.HasSuffix(f, ".js") {
			return
		}
		code, err := fs.ReadFile(appFS.Get(), f)
		if err != nil {
			t.Fatalf("index.html loads %s, which dist lacks", f)
		}
		for _, m := range staticImport.FindAllStringSubmatch(string(code), -1) {
			visit("assets/" + m[1])
		}
	}
	for _, m := range regexp.MustCompile(`(?:src|href)="/(assets/[^"]+\.(?:js|css))"`).FindAllStringSubmatch(string(html), -1) {
		visit(m[1])
	}
	if len(seen) == 0 {
		t.Fatal("index.html loads no script")
	}
	total := 0
	for f := range seen {
		b, _ := fs.ReadFile(appFS.Get(), f)
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(b)
		_ = zw.Close()
		total += buf.Len()
	}
	if total > 300<<10 {
		t.Fatalf("the first page loads %d KB gzipped, over 300 KB", total>>10)
	}
	t.Logf("first page: %d files, %.1f KB gzipped", len(seen), float64(total)/1024)
}

// TestAppIsServed: the app's routes get index.html (revalidated), hashed
// files are cached for good, unknown endpoints are JSON 404s, and every
// answer carries the security headers.
func TestAppIsServed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	for _, path := range []string{"/", "/tables/public/tracks", "/sql"} {
		res, err := http.Get(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, res)
		if res.StatusCode != 200 || !strings.Contains(body, "Basalt Studio") || res.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("GET %s: %d %q", path, res.StatusCode, res.Header.Get("Cache-Control"))
		}
		for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options"} {
			if res.Header.Get(h) == "" {
				t.Errorf("GET %s: no %s", path, h)
			}
		}
	}
	entries, _ := fs.ReadDir(appFS.Get(), "assets")
	if len(entries) == 0 {
		t.Fatal("dist has no assets")
	}
	res, err := http.Get(e.srv.URL + "/assets/" + entries[0].Name())
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, res)
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("asset: %d %q", res.StatusCode, res.Header.Get("Cache-Control"))
	}
	for _, path := range []string{"/api/nothing", "/pg/nothing", "/assets/nothing.js"} {
		res, err := http.Get(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, res)
		if res.StatusCode != 404 && res.StatusCode != 401 {
			t.Errorf("GET %s: %d %s", path, res.StatusCode, body)
		}
	}
}
