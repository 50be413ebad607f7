package studio

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/internal/apikeys"
)

// Every rule of access is checked over every route of the table Studio
// serves from, so a route added later is held to the same rules.

// concrete fills a route pattern's wildcards.
func concrete(pattern string) string {
	return strings.NewReplacer("{schema}", "public", "{table}", "t", "{id}", "1", "{path...}", "users", "{file...}", "x.js", "{sid}", "all", "{name}", "x").Replace(pattern)
}

// accessFixture is a database the route checks can act on.
type accessFixture struct {
	tableID, policyID int64
	snippetID         string
	// Two valid publishable keys: one to rotate, one to revoke.
	rotateKeyID, revokeKeyID string
}

func newAccessFixture(t *testing.T, e *env, c *client) accessFixture {
	t.Helper()
	ctx := context.Background()
	e.exec(`CREATE TABLE public.t (id int PRIMARY KEY, name text)`)
	e.exec(`INSERT INTO public.t VALUES (1, 'one'), (2, 'two'), (3, 'three')`)
	e.exec(`CREATE POLICY p ON public.t FOR SELECT USING (true)`)
	var f accessFixture
	if err := e.db.Admin.QueryRow(ctx, `SELECT 'public.t'::regclass::oid::int8`).Scan(&f.tableID); err != nil {
		t.Fatal(err)
	}
	if err := e.db.Admin.QueryRow(ctx, `SELECT oid::int8 FROM pg_policy WHERE polname = 'p'`).Scan(&f.policyID); err != nil {
		t.Fatal(err)
	}
	var s struct{ ID string }
	c.json("POST", "/api/snippets", map[string]string{"name": "first", "sql": "select 1"}, http.StatusCreated, &s)
	f.snippetID = s.ID
	for i, k := range []*string{&f.rotateKeyID, &f.revokeKeyID} {
		_, key, err := apikeys.Create(ctx, e.db.Admin, apikeys.Publishable, "fixture_"+strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		*k = key.ID
	}
	return f
}

// writeCall is a valid call of a write route.
type writeCall struct {
	path string
	body any
}

// writeCalls are valid calls of every write route; a write route missing
// here fails TestEveryWriteIsAudited.
func writeCalls(f accessFixture) map[string]writeCall {
	id := func(n int64) string { return strconv.FormatInt(n, 10) }
	return map[string]writeCall{
		"DELETE /api/session":                        {"/api/session", nil},
		"PATCH /pg/tables/{id}":                      {"/pg/tables/" + id(f.tableID), map[string]any{"comment": "audited"}},
		"POST /pg/policies":                          {"/pg/policies", map[string]any{"name": "q", "table": "t", "command": "SELECT", "definition": "id > 1"}},
		"PATCH /pg/policies/{id}":                    {"/pg/policies/" + id(f.policyID), map[string]any{"definition": "id > 0"}},
		"DELETE /pg/policies/{id}":                   {"/pg/policies/" + id(f.policyID), nil},
		"POST /pg/query":                             {"/pg/query", map[string]any{"query": "select 1 as one"}},
		"POST /api/rows/{schema}/{table}":            {"/api/rows/public/t", map[string]any{"values": map[string]any{"id": 10, "name": "ten"}}},
		"PATCH /api/rows/{schema}/{table}":           {"/api/rows/public/t", map[string]any{"pk": map[string]any{"id": 1}, "values": map[string]any{"name": "uno"}}},
		"DELETE /api/rows/{schema}/{table}":          {"/api/rows/public/t", map[string]any{"pks": []map[string]any{{"id": 2}}}},
		"POST /api/sql":                              {"/api/sql", map[string]any{"query": "select 2"}},
		"POST /api/sql/cancel":                       {"/api/sql/cancel", map[string]any{"run_id": "00000000-0000-0000-0000-000000000000"}},
		"POST /api/keys":                             {"/api/keys", map[string]any{"type": "publishable", "name": "audited"}},
		"POST /api/keys/{id}/rotate":                 {"/api/keys/" + f.rotateKeyID + "/rotate", nil},
		"DELETE /api/keys/{id}":                      {"/api/keys/" + f.revokeKeyID, nil},
		"POST /api/snippets":                         {"/api/snippets", map[string]any{"name": "second", "sql": "select 2"}},
		"PATCH /api/snippets/{id}":                   {"/api/snippets/" + f.snippetID, map[string]any{"name": "renamed"}},
		"DELETE /api/snippets/{id}":                  {"/api/snippets/" + f.snippetID, nil},
		"POST /auth/v1/admin/{path...}":              {"/auth/v1/admin/users", map[string]any{"email": "new@example.com", "password": "hunter2 hunter2"}},
		"PUT /auth/v1/admin/{path...}":               {"/auth/v1/admin/users/00000000-0000-0000-0000-000000000001", map[string]any{"ban_duration": "1h"}},
		"DELETE /auth/v1/admin/{path...}":            {"/auth/v1/admin/users/00000000-0000-0000-0000-000000000001", nil},
		"POST /api/realtime/token":                   {"/api/realtime/token", map[string]any{"role": "authenticated"}},
		"POST /auth/v1/invite":                       {"/auth/v1/invite", map[string]any{"email": "invited@example.com"}},
		"POST /auth/v1/recover":                      {"/auth/v1/recover", map[string]any{"email": "new@example.com"}},
		"DELETE /api/auth/users/{id}/sessions/{sid}": {"/api/auth/users/00000000-0000-0000-0000-000000000001/sessions/all", nil},
		"POST /storage/v1/{path...}":                 {"/storage/v1/bucket", map[string]any{"name": "media", "public": false}},
		"PATCH /storage/v1/{path...}":                {"/storage/v1/upload/resumable/abc", "chunk"},
		"PUT /storage/v1/{path...}":                  {"/storage/v1/bucket/media", map[string]any{"public": true}},
		"DELETE /storage/v1/{path...}":               {"/storage/v1/object/media", map[string]any{"prefixes": []string{"a.png"}}},
	}
}

func operatorRoutes(s *Service) []route {
	var out []route
	for _, rt := range s.routes {
		if rt.Access == accessOperator {
			out = append(out, rt)
		}
	}
	return out
}

// TestOnlyTheAppAndSignInAreOpen: every route but the app's files and the
// session endpoints needs an operator. A route added as public by mistake
// fails here.
func TestOnlyTheAppAndSignInAreOpen(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	var open []string
	for _, rt := range e.svc.routes {
		if rt.Access != accessOperator {
			open = append(open, rt.Method+" "+rt.Pattern)
		}
	}
	sort.Strings(open)
	want := "GET /|GET /api/session|GET /assets/{file...}|POST /api/session"
	if got := strings.Join(open, "|"); got != want {
		t.Fatalf("routes open without an operator: %s, want %s", got, want)
	}
	if n := len(operatorRoutes(e.svc)); n < 30 {
		t.Fatalf("only %d operator routes: the table is misread", n)
	}
}

// TestEveryRouteRefusesStrangers: without a session, with a user's token,
// with the service-role key from a browser, with a session but no CSRF
// token, a wrong one, or from another origin: refused, before anything
// runs (no audit row, no change).
func TestEveryRouteRefusesStrangers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.SignInMax = 1000 })
	c := e.signIn(testEmail, testPassword)
	newAccessFixture(t, e, c)
	userToken, err := e.keys.Sign(gojwt.MapClaims{"sub": "00000000-0000-0000-0000-000000000001", "role": "authenticated",
		"aud": "authenticated", "exp": time.Now().Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	auditBefore := e.auditCount()
	// A token one character off (never the token itself).
	wrongCSRF := "x" + c.csrf[1:]
	if c.csrf[0] == 'x' {
		wrongCSRF = "y" + c.csrf[1:]
	}
	cases := []struct {
		name   string
		status int
		edit   func(*http.Request)
	}{
		{"no credentials", 401, func(r *http.Request) { r.Header.Del("Cookie"); r.Header.Del(csrfHeader) }},
		{"a user's JWT", 403, func(r *http.Request) {
			r.Header.Del("Cookie")
			r.Header.Del("Origin")
			r.Header.Del("Sec-Fetch-Site")
			r.Header.Del("User-Agent")
			r.Header.Set("Authorization", "Bearer "+userToken)
			r.Header.Set("apikey", e.keys.AnonKey)
		}},
		{"the anon key", 403, func(r *http.Request) {
			r.Header.Del("Cookie")
			r.Header.Del("Origin")
			r.Header.Del("Sec-Fetch-Site")
			r.Header.Del("User-Agent")
			r.Header.Set("apikey", e.keys.AnonKey)
		}},
		{"a forged token", 401, func(r *http.Request) {
			r.Header.Del("Cookie")
			r.Header.Set("Authorization", "Bearer "+userToken[:len(userToken)-4]+"AAAA")
		}},
		{"the service-role key from a browser page", 403, func(r *http.Request) {
			r.Header.Del("Cookie")
			r.Header.Del(csrfHeader)
			r.Header.Set("apikey", e.keys.ServiceRoleKey)
			r.Header.Set("Authorization", "Bearer "+e.keys.ServiceRoleKey)
		}},
		{"the service-role key with a browser's agent only", 403, func(r *http.Request) {
			r.Header.Del("Cookie")
			r.Header.Del("Origin")
			r.Header.Del("Sec-Fetch-Site")
			r.Header.Set("apikey", e.keys.ServiceRoleKey)
		}},
		{"the secret key from a browser page", 403, func(r *http.Request) {
			r.Header.Del("Cookie")
			r.Header.Set("apikey", e.keys.SecretKey)
		}},
		{"a session without the CSRF token", 403, func(r *http.Request) { r.Header.Del(csrfHeader) }},
		{"a session with a wrong CSRF token", 403, func(r *http.Request) { r.Header.Set(csrfHeader, wrongCSRF) }},
		{"a session from another origin", 403, func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }},
		{"a session from a cross-site page", 403, func(r *http.Request) {
			r.Header.Del("Origin")
			r.Header.Set("Sec-Fetch-Site", "cross-site")
		}},
	}
	for _, rt := range operatorRoutes(e.svc) {
		for _, tc := range cases {
			req := c.request(rt.Method, concrete(rt.Pattern), "{}")
			tc.edit(req)
			res := send(t, req)
			body := readAll(t, res)
			if res.StatusCode != tc.status {
				t.Errorf("%s %s with %s: status %d, want %d (%s)", rt.Method, rt.Pattern, tc.name, res.StatusCode, tc.status, body)
				continue
			}
			var eb errorBody
			if json.Unmarshal([]byte(body), &eb) != nil || eb.Error == "" {
				t.Errorf("%s %s with %s: body %q has no error message", rt.Method, rt.Pattern, tc.name, body)
			}
		}
	}
	if got := e.auditCount(); got != auditBefore {
		t.Errorf("refused calls wrote %d audit rows", got-auditBefore)
	}
	var rows, policies int
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM public.t), (SELECT count(*) FROM pg_policy WHERE polrelid = 'public.t'::regclass)`).Scan(&rows, &policies); err != nil {
		t.Fatal(err)
	}
	if rows != 3 || policies != 1 {
		t.Errorf("refused calls changed the data: %d rows, %d policies", rows, policies)
	}
}

// TestServiceKeyWorksForScripts: a client that is no browser may call
// every route with the service-role key (tools written for postgres-meta).
func TestServiceKeyWorksForScripts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.exec(`CREATE TABLE public.t (id int PRIMARY KEY, name text)`)
	for _, key := range []string{e.keys.ServiceRoleKey, e.keys.SecretKey} {
		for _, rt := range operatorRoutes(e.svc) {
			if rt.Method != "GET" {
				continue
			}
			req, _ := http.NewRequest(rt.Method, e.srv.URL+concrete(rt.Pattern), nil)
			req.Header.Set("apikey", key)
			res := send(t, req)
			body := readAll(t, res)
			if res.StatusCode == 401 || res.StatusCode == 403 {
				t.Errorf("GET %s with the key: %d %s", rt.Pattern, res.StatusCode, body)
			}
		}
	}
	// Its writes are audited under the key's name.
	req, _ := http.NewRequest("POST", e.srv.URL+"/pg/query", strings.NewReader(`{"query":"select 1"}`))
	req.Header.Set("Authorization", "Bearer "+e.keys.ServiceRoleKey)
	if res := send(t, req); res.StatusCode != 200 {
		t.Fatalf("POST /pg/query with the key: %d %s", res.StatusCode, readAll(t, res))
	}
	var actor string
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT actor FROM basalt.studio_audit WHERE action = 'sql.query'`).Scan(&actor); err != nil || actor != "service_role key" {
		t.Fatalf("audit actor %q, %v", actor, err)
	}
}

// TestEveryWriteIsAudited: each write route, called as a signed-in
// operator, leaves an audit row naming who, what, the target and the
// outcome.
func TestEveryWriteIsAudited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.SignInMax = 1000 })
	setup := e.signIn(testEmail, testPassword)
	f := newAccessFixture(t, e, setup)
	calls := writeCalls(f)
	maps.Copy(calls, databaseWriteCalls(t, e))
	for _, rt := range operatorRoutes(e.svc) {
		if rt.Action == "" {
			continue
		}
		key := rt.Method + " " + rt.Pattern
		call, ok := calls[key]
		if !ok {
			t.Errorf("%s writes but has no call in writeCalls: add one", key)
			continue
		}
		c := e.signIn(testEmail, testPassword) // sign-out ends its own session
		res := c.do(rt.Method, call.path, call.body)
		body := readAll(t, res)
		if want, refused := refusedWrites[key]; refused && res.StatusCode != want || !refused && res.StatusCode >= 300 {
			t.Errorf("%s: status %d: %s", key, res.StatusCode, body)
			continue
		}
		var a struct {
			Actor, Action, Target string
			Status                int
			Path                  string
		}
		err := e.db.Admin.QueryRow(context.Background(), `SELECT actor, action, target, coalesce(status, 0), detail->>'path'
			FROM basalt.studio_audit WHERE action = $1 ORDER BY id DESC LIMIT 1`, rt.Action).Scan(&a.Actor, &a.Action, &a.Target, &a.Status, &a.Path)
		if err != nil {
			t.Errorf("%s: no audit row with action %s: %v", key, rt.Action, err)
			continue
		}
		if a.Actor != testEmail || a.Status != res.StatusCode || a.Path != strings.Split(call.path, "?")[0] || a.Target == "" {
			t.Errorf("%s: audit row %+v, want actor %s, status %d, path %s and a target", key, a, testEmail, res.StatusCode, call.path)
		}
	}
	// Secrets in a body are not kept.
	var leaked int
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM basalt.studio_audit WHERE detail::text LIKE '%hunter2%'`).Scan(&leaked); err != nil || leaked != 0 {
		t.Errorf("the audit log kept a password (%d rows, %v)", leaked, err)
	}
	if f := e.api.last(); f == nil || f.Header.Get("apikey") != e.keys.ServiceRoleKey || f.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("GoTrue's admin API was not called with the service-role key: %v", f)
	}
}
