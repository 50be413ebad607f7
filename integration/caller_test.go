package integration_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/rest"
	"github.com/basaltdev/basalt/storage"
	"github.com/basaltdev/basalt/storage/fsbackend"
)

// contextSQL is one policy's view of the request: it passes only when every
// request setting holds the values the test sent, in the one encoding
// (PostgREST's). expect.path is the path the test sends next.
const contextSQL = `
CREATE TABLE public.expect (path text NOT NULL);
INSERT INTO public.expect VALUES ('');
GRANT SELECT ON public.expect TO anon, authenticated;

CREATE FUNCTION public.request_context() RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'method', current_setting('request.method', true),
    'path', current_setting('request.path', true),
    'headers', current_setting('request.headers', true)::jsonb,
    'cookies', current_setting('request.cookies', true)::jsonb,
    'claims', current_setting('request.jwt.claims', true)::jsonb)
$$;

CREATE FUNCTION public.context_ok() RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT coalesce(c->>'method' = 'GET'
     AND c->>'path' = (SELECT path FROM public.expect)
     AND c->'headers'->>'x-probe' = 'one, two'
     AND c->'headers'->>'x-real-ip' = '198.51.100.7'
     AND c->'headers'->>'authorization' LIKE 'Bearer %'
     AND c->'headers'->>'host' = 'api.test'
     AND NOT c->'headers' ? 'cookie'
     AND c->'cookies'->>'flavour' = 'oat'
     AND c->'claims'->>'probe' = 'yes'
     AND c->'claims'->>'role' = 'authenticated', false)
  FROM public.request_context() c
$$;
GRANT EXECUTE ON FUNCTION public.request_context(), public.context_ok() TO anon, authenticated;

CREATE TABLE public.probe (id int PRIMARY KEY);
INSERT INTO public.probe VALUES (1);
ALTER TABLE public.probe ENABLE ROW LEVEL SECURITY;
CREATE POLICY seen ON public.probe FOR SELECT USING (public.context_ok());
GRANT SELECT ON public.probe TO anon, authenticated;

CREATE FUNCTION public.probe_visible() RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT public.context_ok()
$$;
GRANT EXECUTE ON FUNCTION public.probe_visible() TO anon, authenticated;

INSERT INTO storage.buckets (id, name, public) VALUES ('probe', 'probe', false);
CREATE POLICY seen ON storage.objects FOR SELECT USING (bucket_id = 'probe' AND public.context_ok());
`

// TestOneCallerEveryService sends the same request to REST, RPC, storage
// and a Go function through the gateway; one policy must see the same
// method, headers, cookies and claims (and each service's path) in each.
func TestOneCallerEveryService(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	if _, err := db.Admin.Exec(ctx, contextSQL); err != nil {
		t.Fatal(err)
	}
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	restSvc, err := rest.New(rest.Config{}, db.User, db.Admin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(restSvc.Close)
	backend, err := fsbackend.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	storageSvc, err := storage.New(storage.Config{}, db.Admin, db.User, keys, backend)
	if err != nil {
		t.Fatal(err)
	}
	// The Go function counts the probe rows it sees as the caller.
	probe := functions.Function{Name: "probe", VerifyJWT: true, Handler: func(w http.ResponseWriter, r *http.Request) error {
		var n int
		err := pg.AsCaller(r.Context(), db.User, pg.CallerFromRequest(r, jwt.FromContext(r.Context()).Claims),
			func(tx pgx.Tx) error { return tx.QueryRow(r.Context(), `SELECT count(*) FROM public.probe`).Scan(&n) })
		if err != nil {
			return err
		}
		_, err = fmt.Fprint(w, n)
		return err
	}}
	fnSvc, err := functions.New(functions.Config{Keys: keys, GatewayCORS: true}, probe)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(gateway.Config{}, gateway.Services{REST: restSvc, Storage: storageSvc, Functions: fnSvc}, keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	token, err := keys.Sign(gojwt.MapClaims{"sub": "8d0fd2b3-9ca7-4c1a-9d2a-5e4bb1c1b1a1", "role": "authenticated",
		"aud": "authenticated", "probe": "yes", "exp": time.Now().Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}

	send := func(method, path, bearer string, body io.Reader, cookie bool) (int, string) {
		t.Helper()
		r := httptest.NewRequest(method, "http://api.test"+path, body)
		r.RemoteAddr = "198.51.100.7:40000"
		r.Header.Set("apikey", keys.AnonKey)
		r.Header.Set("Authorization", "Bearer "+bearer)
		r.Header["X-Probe"] = []string{"one", "two"}
		if cookie {
			r.Header.Set("Cookie", "flavour=oat; other=1")
		}
		w := httptest.NewRecorder()
		gw.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	expect := func(path string) {
		t.Helper()
		if _, err := db.Admin.Exec(ctx, `UPDATE public.expect SET path = $1`, path); err != nil {
			t.Fatal(err)
		}
	}
	// The object's bytes, uploaded with the service key (no policy needed).
	if code, body := send("POST", "/storage/v1/object/probe/a.txt", keys.ServiceRoleKey, strings.NewReader("hello"), false); code != 200 {
		t.Fatalf("upload: %d %s", code, body)
	}

	cases := []struct {
		service, url, path string
		seen, unseen       func(code int, body string) bool
	}{
		{"rest", "/rest/v1/probe?select=id", "/probe",
			func(c int, b string) bool { return c == 200 && b == `[{"id":1}]` },
			func(c int, b string) bool { return c == 200 && b == `[]` }},
		{"rpc", "/rest/v1/rpc/probe_visible", "/rpc/probe_visible",
			func(c int, b string) bool { return c == 200 && b == `true` },
			func(c int, b string) bool { return c == 200 && b == `false` }},
		{"storage", "/storage/v1/object/authenticated/probe/a.txt", "/object/authenticated/probe/a.txt",
			func(c int, b string) bool { return c == 200 && b == "hello" },
			func(c int, b string) bool { return c == 400 && strings.Contains(b, "not_found") }},
		{"function", "/functions/v1/probe", "/",
			func(c int, b string) bool { return c == 200 && b == "1" },
			func(c int, b string) bool { return c == 200 && b == "0" }},
	}
	for _, tc := range cases {
		t.Run(tc.service, func(t *testing.T) {
			expect(tc.path)
			if code, body := send("GET", tc.url, token, nil, true); !tc.seen(code, body) {
				_, seen := send("GET", "/rest/v1/rpc/request_context", token, nil, true)
				t.Errorf("policy refused the request: %d %s\nas REST sees it: %s", code, body, seen)
			}
			// Controls: the policy really reads the settings.
			if code, body := send("GET", tc.url, token, nil, false); !tc.unseen(code, body) {
				t.Errorf("without the cookie: %d %s, want the row hidden", code, body)
			}
			expect("/elsewhere")
			if code, body := send("GET", tc.url, token, nil, true); !tc.unseen(code, body) {
				t.Errorf("with another expected path: %d %s, want the row hidden", code, body)
			}
		})
	}
}
