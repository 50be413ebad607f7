package gateway_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestAppLinkPreviews runs the app server against a real database whose
// preview function reads a table under row-level security as a visitor.
func TestAppLinkPreviews(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	for _, sql := range []string{
		`CREATE TABLE public.pages (slug text PRIMARY KEY, title text, visible boolean, image text)`,
		`ALTER TABLE public.pages ENABLE ROW LEVEL SECURITY`,
		`GRANT SELECT ON public.pages TO anon`,
		`CREATE POLICY visible ON public.pages FOR SELECT TO anon USING (visible)`,
		`INSERT INTO public.pages VALUES
			('one', 'Tom & "Jerry" <script>alert(1)</script>', true, '/storage/v1/object/public/covers/a b.jpg'),
			('hidden', 'Secret', false, NULL),
			('absolute', 'Elsewhere', true, 'https://cdn.example.com/x.png'),
			('script', 'Bad image', true, 'javascript:alert(1)')`,
		// The function lives in a schema only visitors may use, as an app's
		// own schema is: nothing of it may run as the connecting role.
		`CREATE SCHEMA previews`,
		`GRANT USAGE ON SCHEMA previews TO anon`,
		`CREATE FUNCTION previews.page_preview(p_path text) RETURNS jsonb LANGUAGE sql STABLE AS $$
			SELECT CASE WHEN p_path = '/p/slow' THEN (SELECT NULL::jsonb FROM pg_sleep(5)) ELSE
			(SELECT jsonb_build_object('title', title, 'description', 'seen by ' || current_user, 'image', image)
			 FROM public.pages WHERE '/p/' || slug = p_path) END $$`,
		`REVOKE ALL ON FUNCTION previews.page_preview(text) FROM PUBLIC`,
		`GRANT EXECUTE ON FUNCTION previews.page_preview(text) TO anon`,
	} {
		if _, err := db.Admin.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	dir := t.TempDir()
	shell := "<!doctype html><html><head lang=\"en\"><meta charset=\"utf-8\"><title>Backline</title></head><body><div id=root></div></body></html>"
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(shell), 0o644); err != nil {
		t.Fatal(err)
	}
	app := gateway.NewApp(gateway.AppConfig{Dir: dir}, nil)
	if err := app.UsePreviews(gateway.PreviewConfig{DB: db.User, Function: "previews.page_preview; DROP TABLE x", Paths: []string{"/p/"}}); err == nil {
		t.Fatal("a function name that is not schema.name was taken")
	}
	if err := app.UsePreviews(gateway.PreviewConfig{DB: db.User, Function: "previews.page_preview", Paths: []string{"/p/"},
		APIURL: "https://api.example.com", Timeout: 200 * time.Millisecond, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)

	get := func(method, path, agent string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		req.Header.Set("User-Agent", agent)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	const whatsapp = "WhatsApp/2.23.20.0 A"
	const browser = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/124.0 Mobile Safari/537.36"

	res, body := get("GET", "/p/one", whatsapp)
	for _, want := range []string{
		`<head lang="en">` + "\n" + `<title>Tom &amp; &#34;Jerry&#34; &lt;script&gt;alert(1)&lt;/script&gt;</title>`,
		`<meta property="og:title" content="Tom &amp; &#34;Jerry&#34; &lt;script&gt;alert(1)&lt;/script&gt;">`,
		`<meta property="og:description" content="seen by anon">`,
		`<meta property="og:image" content="https://api.example.com/storage/v1/object/public/covers/a%20b.jpg">`,
		`<meta property="og:url" content="` + srv.URL + `/p/one">`,
		`<meta name="twitter:card" content="summary_large_image">`,
		`<div id=root></div>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("crawler page lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, "<title>Backline</title>") || strings.Contains(body, "<script>") {
		t.Errorf("shell title kept or markup unescaped:\n%s", body)
	}
	if res.Header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "User-Agent") || res.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("headers %v", res.Header)
	}
	if _, body := get("GET", "/p/absolute", "facebookexternalhit/1.1"); !strings.Contains(body, `content="https://cdn.example.com/x.png"`) {
		t.Errorf("absolute image:\n%s", body)
	}
	if _, body := get("GET", "/p/script", "Twitterbot/1.0"); strings.Contains(body, "javascript") || !strings.Contains(body, `og:title" content="Bad image"`) {
		t.Errorf("a non-http image must be dropped:\n%s", body)
	}

	// Everyone else, and paths without a preview, get the shell as it is.
	for _, c := range []struct{ path, agent string }{
		{"/p/one", browser},
		{"/p/hidden", whatsapp},  // row-level security: the visitor cannot see it
		{"/p/missing", whatsapp}, // the function answers NULL
		{"/elsewhere", whatsapp}, // not a preview path
		{"/p/slow", whatsapp},    // the database is slow: no preview, no wait
	} {
		start := time.Now()
		res, body := get("GET", c.path, c.agent)
		if res.StatusCode != 200 || body != shell {
			t.Errorf("%s as %q: %d %s", c.path, c.agent, res.StatusCode, body)
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("%s took %s", c.path, took)
		}
	}

	// Answers are reused within the TTL: a change shows after it.
	if _, err := db.Admin.Exec(ctx, `UPDATE public.pages SET title = 'Renamed' WHERE slug = 'one'`); err != nil {
		t.Fatal(err)
	}
	if _, body := get("GET", "/p/one", whatsapp); !strings.Contains(body, "Tom &amp;") {
		t.Errorf("cached answer not reused:\n%s", body)
	}
	if res, body := get("HEAD", "/p/one", whatsapp); res.StatusCode != 200 || body != "" {
		t.Errorf("HEAD: %d %q", res.StatusCode, body)
	}
}
