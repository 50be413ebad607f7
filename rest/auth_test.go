package rest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/jwt"
)

func TestAuthAndRLS(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	runScenarios(t, e, []scenario{
		{name: "anon sees public notes", call: call{target: "/notes?select=body&order=id"}, status: 200, body: `[{"body":"alice public"}]`},
		{name: "alice sees hers", call: call{target: "/notes?select=body&order=id", as: asAlice}, status: 200,
			body: `[{"body":"alice private"},{"body":"alice public"}]`},
		{name: "bob sees his and public", call: call{target: "/notes?select=body&order=id", as: asBob}, status: 200,
			body: `[{"body":"alice public"},{"body":"bob private"}]`},
		{name: "service role bypasses rls", call: call{target: "/notes?select=count", as: asService}, status: 200, body: `[{"count":3}]`},
		{name: "anon insert is 401", call: call{method: "POST", target: "/notes", body: `{"body":"x"}`}, status: 401,
			body:    `{"code":"42501","message":"new row violates row-level security policy for table \"notes\"","details":null,"hint":null}`,
			headers: map[string]string{"WWW-Authenticate": "Bearer", "Proxy-Status": "PostgREST; error=42501"}},
		{name: "forged owner is 403", call: call{method: "POST", target: "/notes", body: `{"body":"x","owner":"` + bob + `"}`, as: asAlice}, status: 403},
		{name: "insert with default owner", call: call{method: "POST", target: "/notes?select=body,owner", body: `{"body":"new"}`, as: asAlice,
			headers: map[string]string{"Prefer": "return=representation"}}, status: 201, body: `[{"body":"new","owner":"` + alice + `"}]`},
		{name: "bob cannot update alice", call: call{method: "PATCH", target: "/notes?body=eq.alice%20public", body: `{"body":"hacked"}`, as: asBob,
			headers: map[string]string{"Prefer": "count=exact"}}, status: 204, headers: map[string]string{"Content-Range": "*/0"}},
		{name: "write-only insert needs no select policy", call: call{method: "POST", target: "/inbox", body: `{"email":"a@b.c"}`,
			headers: map[string]string{"Prefer": "count=exact"}}, status: 201, raw: strp(""), headers: map[string]string{"Content-Range": "*/1"}},
		{name: "write-only insert with representation is refused", call: call{method: "POST", target: "/inbox", body: `{"email":"a@b.c"}`,
			headers: map[string]string{"Prefer": "return=representation"}}, status: 401},
		{name: "request settings", call: call{target: "/rpc/whoami", as: asAlice, headers: map[string]string{"Cookie": "session=abc"}}, status: 200,
			body: `{"role":"authenticated","sub":"` + alice + `","method":"GET","path":"/rpc/whoami","ip":"10.1.2.3","timeout":"8s","cookie":"abc"}`},
		{name: "anon settings", call: call{target: "/rpc/whoami"}, status: 200,
			body: `{"role":"anon","sub":null,"method":"GET","path":"/rpc/whoami","ip":"10.1.2.3","timeout":"3s","cookie":null}`},
		{name: "expired token", call: call{target: "/users", as: caller{err: fmt.Errorf("%w: token is expired", jwt.ErrExpired)}}, status: 401,
			body:    `{"code":"PGRST303","message":"JWT expired","details":null,"hint":null}`,
			headers: map[string]string{"WWW-Authenticate": `Bearer error="invalid_token", error_description="JWT expired"`}},
		{name: "token not yet valid", call: call{target: "/users", as: caller{err: fmt.Errorf("%w: token is not valid yet", jwt.ErrNotYetValid)}}, status: 401,
			body:    `{"code":"PGRST303","message":"JWT not yet valid","details":null,"hint":null}`,
			headers: map[string]string{"WWW-Authenticate": `Bearer error="invalid_token", error_description="JWT not yet valid"`}},
		{name: "token issued in the future", call: call{target: "/users", as: caller{err: fmt.Errorf("%w: token used before issued", jwt.ErrIssuedInFuture)}}, status: 401,
			body:    `{"code":"PGRST303","message":"JWT issued at future","details":null,"hint":null}`,
			headers: map[string]string{"WWW-Authenticate": `Bearer error="invalid_token", error_description="JWT issued at future"`}},
		{name: "malformed token", call: call{target: "/users", as: caller{err: fmt.Errorf("%w: expected 3 parts in JWT; got 1", jwt.ErrMalformed)}}, status: 401,
			body: `{"code":"PGRST301","message":"Expected 3 parts in JWT; got 1","details":null,"hint":null}`},
		{name: "bad signature", call: call{target: "/users", as: caller{err: fmt.Errorf("%w: x", jwt.ErrSignature)}}, status: 401,
			body: `{"code":"PGRST301","message":"No suitable key or wrong key type","details":"No suitable key was found to decode the JWT","hint":null}`},
		{name: "unknown role", call: call{target: "/users", as: caller{role: "nobody_role"}}, status: 401,
			body: `{"code":"22023","message":"role \"nobody_role\" does not exist","details":null,"hint":null}`},
		{name: "privileged role refused", call: call{target: "/users", as: caller{role: "postgres"}}, status: 403},
	})
}

// TestSchemaReload checks that DDL reaches the cache through the event
// trigger and NOTIFY, without a restart.
func TestSchemaReload(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if w := e.do(t, call{target: "/late"}); w.Code != 404 {
		t.Fatalf("before DDL: status %d", w.Code)
	}
	ctx := context.Background()
	if _, err := e.db.Admin.Exec(ctx, `CREATE TABLE late (id int PRIMARY KEY); GRANT SELECT ON late TO anon; INSERT INTO late VALUES (7)`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		w := e.do(t, call{target: "/late"})
		if w.Code == 200 {
			if !jsonEqual(t, w.Body.String(), `[{"id":7}]`) {
				t.Fatalf("body %s", w.Body.String())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("table never appeared: %d %s", w.Code, w.Body.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A column change must not reuse statements prepared for the old shape.
	if _, err := e.db.Admin.Exec(ctx, `ALTER TABLE late ADD COLUMN name text DEFAULT 'n'`); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(5 * time.Second)
	for {
		w := e.do(t, call{target: "/late"})
		if w.Code == 200 && jsonEqual(t, w.Body.String(), `[{"id":7,"name":"n"}]`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("new column never appeared: %d %s", w.Code, w.Body.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestNoCacheIs503(t *testing.T) {
	t.Parallel()
	s := &Service{cfg: testConfig()}
	s.cfg.defaults()
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "/users", nil))
	if w.Code != 503 || w.Header().Get("Retry-After") == "" {
		t.Fatalf("status %d headers %v", w.Code, w.Header())
	}
	if !jsonEqual(t, w.Body.String(), `{"code":"PGRST002","message":"Could not query the database for the schema cache. Retrying.","details":null,"hint":null}`) {
		t.Fatalf("body %s", w.Body.String())
	}
}

// TestInDatabaseConfig checks that pgrst.* settings on the login role
// override the service configuration after a reload.
func TestInDatabaseConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	if w := e.do(t, call{target: "/messages?select=count()"}); w.Code != 200 {
		t.Fatalf("aggregates enabled by config: %d %s", w.Code, w.Body.String())
	}
	// Database-scoped, so parallel tests on other databases are unaffected.
	if _, err := e.db.Admin.Exec(ctx, `ALTER ROLE authenticator IN DATABASE `+e.db.Name+` SET pgrst.db_aggregates_enabled = 'false'`); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	runScenarios(t, e, []scenario{
		{name: "aggregates now refused", call: call{target: "/messages?select=count()"}, status: 400,
			body: `{"code":"PGRST123","message":"Use of aggregate functions is not allowed","details":null,"hint":null}`},
		{name: "legacy count still works", call: call{target: "/messages?select=count"}, status: 200, body: `[{"count":3}]`},
	})
}
