package integration_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/realtime"
	"github.com/basaltdev/basalt/rest"
	"github.com/basaltdev/basalt/storage"
	"github.com/basaltdev/basalt/storage/fsbackend"
)

// rolesSQL: a table every API role may read, an object in a bucket, and
// web_anon, the anonymous role REST is configured with below.
const rolesSQL = `
CREATE TABLE public.items (id int PRIMARY KEY);
INSERT INTO public.items VALUES (1);
GRANT SELECT ON public.items TO anon, authenticated, service_role;
CREATE ROLE web_anon NOLOGIN;
GRANT web_anon TO authenticator;
GRANT USAGE ON SCHEMA public TO web_anon;
GRANT SELECT ON public.items TO web_anon;
INSERT INTO storage.buckets (id, name, public) VALUES ('b', 'b', false);
CREATE POLICY everyone ON storage.objects FOR SELECT USING (bucket_id = 'b');
`

// roleStack is the gateway over REST (anonymous role web_anon), storage,
// realtime and a Go function, on one database and one set of keys.
type roleStack struct {
	keys *jwt.Keys
	srv  *httptest.Server
}

func newRoleStack(t *testing.T) *roleStack {
	t.Helper()
	db := pgtest.NewDB(t)
	if _, err := db.Admin.Exec(context.Background(), rolesSQL); err != nil {
		t.Fatal(err)
	}
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	restSvc, err := rest.New(rest.Config{AnonRole: "web_anon"}, db.User, db.Admin)
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
	rtSvc, err := realtime.New(realtime.Config{}, db.Admin, db.User, keys)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rtSvc.Close)
	// count reads the table as the caller; "checked" has verify_jwt on,
	// "open" has it off.
	count := func(w http.ResponseWriter, r *http.Request) error {
		return pg.AsCaller(r.Context(), db.User, pg.CallerFromRequest(r, jwt.FromContext(r.Context()).Claims),
			func(tx pgx.Tx) error {
				var n int
				if err := tx.QueryRow(r.Context(), `SELECT count(*) FROM public.items`).Scan(&n); err != nil {
					return err
				}
				return json.NewEncoder(w).Encode(n)
			})
	}
	fnSvc, err := functions.New(functions.Config{Keys: keys, GatewayCORS: true},
		functions.Function{Name: "checked", VerifyJWT: true, Handler: count},
		functions.Function{Name: "open", Handler: count})
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(gateway.Config{}, gateway.Services{REST: restSvc, Storage: storageSvc, Realtime: rtSvc, Functions: fnSvc}, keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)
	s := &roleStack{keys: keys, srv: srv}
	if code, body := s.send(t, "POST", "/storage/v1/object/b/a.txt", keys.ServiceRoleKey, "hello"); code != 200 {
		t.Fatalf("upload: %d %s", code, body)
	}
	return s
}

func (s *roleStack) token(t *testing.T, role string) string {
	t.Helper()
	tok, err := s.keys.SignHS256(gojwt.MapClaims{"role": role, "sub": "8d0fd2b3-9ca7-4c1a-9d2a-5e4bb1c1b1a1",
		"exp": time.Now().Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (s *roleStack) send(t *testing.T, method, path, bearer, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("apikey", s.keys.AnonKey)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, strings.TrimSpace(string(b))
}

// joinWith joins a realtime channel with token as its access token and
// returns the join's reply.
func (s *roleStack) joinWith(t *testing.T, token string) map[string]any {
	t.Helper()
	u := "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/realtime/v1/websocket?apikey=" + s.keys.AnonKey + "&vsn=1.0.0"
	ws, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	join := map[string]any{"join_ref": "1", "ref": "1", "topic": "realtime:room", "event": "phx_join",
		"payload": map[string]any{"config": map[string]any{}, "access_token": token}}
	if err := ws.WriteJSON(join); err != nil {
		t.Fatal(err)
	}
	if err := ws.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	for {
		var m map[string]any
		if err := ws.ReadJSON(&m); err != nil {
			t.Fatalf("no join reply: %v", err)
		}
		if m["event"] == "phx_reply" {
			return m["payload"].(map[string]any)
		}
	}
}

// TestEveryServiceRefusesRolesOutsideItsList: a token signed with the
// project's key but naming a role outside the allow-list is refused by
// REST, storage, realtime and functions, each in its reference's words;
// and REST's configured anonymous role widens REST's list only.
func TestEveryServiceRefusesRolesOutsideItsList(t *testing.T) {
	s := newRoleStack(t)

	// The controls: the API roles pass everywhere.
	user := s.token(t, "authenticated")
	for _, path := range []string{"/rest/v1/items", "/storage/v1/object/authenticated/b/a.txt", "/functions/v1/checked", "/functions/v1/open"} {
		if code, body := s.send(t, "GET", path, user, ""); code != 200 {
			t.Fatalf("%s as authenticated: %d %s", path, code, body)
		}
	}
	if reply := s.joinWith(t, user); reply["status"] != "ok" {
		t.Fatalf("join as authenticated: %v", reply)
	}

	for _, tc := range []struct {
		role      string
		restCode  int
		restError string
	}{
		// PostgREST answers what SET ROLE says: 401 for a role that does
		// not exist, 403 for one the authenticator may not become.
		{"intruder", 401, `{"code":"22023","details":null,"hint":null,"message":"role \"intruder\" does not exist"}`},
		{"postgres", 403, `{"code":"42501","details":null,"hint":null,"message":"permission denied to set role \"postgres\""}`},
		// REST's own anonymous role: no other service's.
		{"web_anon", 200, `[{"id":1}]`},
	} {
		t.Run(tc.role, func(t *testing.T) {
			tok := s.token(t, tc.role)
			if code, body := s.send(t, "GET", "/rest/v1/items", tok, ""); code != tc.restCode || body != tc.restError {
				t.Errorf("rest: %d %s", code, body)
			}
			if code, body := s.send(t, "GET", "/storage/v1/object/authenticated/b/a.txt", tok, ""); code != 400 ||
				body != `{"code":"AccessDenied","error":"Unauthorized","message":"Invalid JWT role","statusCode":"403"}` {
				t.Errorf("storage: %d %s", code, body)
			}
			for _, fn := range []string{"checked", "open"} {
				if code, body := s.send(t, "GET", "/functions/v1/"+fn, tok, ""); code != 401 || body != `{"code":401,"message":"Invalid JWT"}` {
					t.Errorf("function %s: %d %s", fn, code, body)
				}
			}
			reply := s.joinWith(t, tok)
			want := `InvalidJWTToken: The role "` + tc.role + `" in the JWT is not allowed`
			if reply["status"] != "error" || reply["response"].(map[string]any)["reason"] != want {
				t.Errorf("realtime join: %v", reply)
			}
		})
	}
}
