package pg_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func claims(t *testing.T, v map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAsCaller(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	ctx := context.Background()
	const alice, bob = "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"
	_, err := db.Admin.Exec(ctx, `
		CREATE TABLE public.notes (id serial PRIMARY KEY, owner uuid NOT NULL, body text NOT NULL);
		GRANT SELECT ON public.notes TO anon, authenticated, service_role;
		ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
		CREATE POLICY "authenticated can select own notes" ON public.notes FOR SELECT TO authenticated USING (auth.uid() = owner);`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Admin.Exec(ctx, `INSERT INTO public.notes (owner, body) VALUES ($1, 'a1'), ($1, 'a2'), ($2, 'b1')`, alice, bob); err != nil {
		t.Fatal(err)
	}
	count := func(req pg.Caller) (n int, uid *string, role string) {
		t.Helper()
		err := pg.AsCaller(ctx, db.User, req, func(tx pgx.Tx) error {
			return tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM public.notes), auth.uid()::text, current_user`).Scan(&n, &uid, &role)
		})
		if err != nil {
			t.Fatalf("AsCaller(%s): %v", req.Role, err)
		}
		return n, uid, role
	}
	tests := []struct {
		name     string
		req      pg.Caller
		wantRows int
		wantUID  string
		wantRole string
	}{
		{"alice sees her two notes", pg.Caller{Role: "authenticated", Claims: claims(t, map[string]any{"sub": alice, "role": "authenticated"})}, 2, alice, "authenticated"},
		{"bob sees his one note", pg.Caller{Role: "authenticated", Claims: claims(t, map[string]any{"sub": bob, "role": "authenticated"})}, 1, bob, "authenticated"},
		{"anon without a JWT sees nothing", pg.Caller{Role: "anon"}, 0, "", "anon"},
		{"service_role bypasses RLS", pg.Caller{Role: "service_role"}, 3, "", "service_role"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, uid, role := count(tt.req)
			got := ""
			if uid != nil {
				got = *uid
			}
			if n != tt.wantRows || got != tt.wantUID || role != tt.wantRole {
				t.Errorf("rows, auth.uid(), current_user = %d, %q, %q; want %d, %q, %q", n, got, role, tt.wantRows, tt.wantUID, tt.wantRole)
			}
		})
	}

	t.Run("settings do not leak past the transaction", func(t *testing.T) {
		var role string
		var claims *string
		if err := db.User.QueryRow(ctx, `SELECT current_user, nullif(current_setting('request.jwt.claims', true), '')`).Scan(&role, &claims); err != nil {
			t.Fatal(err)
		}
		if role != "authenticator" || claims != nil {
			t.Errorf("after the request: current_user=%q claims=%v; want authenticator and no claims", role, claims)
		}
	})

	t.Run("a role outside the allow-list is refused", func(t *testing.T) {
		err := pg.AsCaller(ctx, db.User, pg.Caller{Role: "postgres"}, func(pgx.Tx) error { return nil })
		if !errors.Is(err, pg.ErrRoleNotAllowed) {
			t.Errorf("AsCaller(postgres) = %v, want ErrRoleNotAllowed", err)
		}
	})

	t.Run("request settings are visible to SQL", func(t *testing.T) {
		var method, path, hdr string
		err := pg.AsCaller(ctx, db.User, pg.Caller{Role: "anon", Method: "GET", Path: "/notes", Headers: json.RawMessage(`{"x-forwarded-for":"203.0.113.9"}`)}, func(tx pgx.Tx) error {
			return tx.QueryRow(ctx, `SELECT current_setting('request.method'), current_setting('request.path'), current_setting('request.headers')::json->>'x-forwarded-for'`).Scan(&method, &path, &hdr)
		})
		if err != nil {
			t.Fatal(err)
		}
		if method != "GET" || path != "/notes" || hdr != "203.0.113.9" {
			t.Errorf("got %q %q %q", method, path, hdr)
		}
	})
}

// The pool takes PostgREST's size unless the URL sets one; a connection
// keeps the statement cache its mode uses and not the description cache it
// would never fill, unless the URL asks for one. The queries still run.
func TestConnectPoolSettings(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	ctx := context.Background()
	tests := []struct {
		name         string
		url          string
		maxConns     int32
		descriptions int
	}{
		{"default is PostgREST's pool size, no description cache", db.UserURL, pg.DefaultMaxConns, 0},
		{"the URL's pool_max_conns wins", db.UserURL + "&pool_max_conns=3", 3, 0},
		{"the URL's description_cache_capacity wins", db.UserURL + "&description_cache_capacity=7", pg.DefaultMaxConns, 7},
		{"cache_describe mode keeps its cache", db.UserURL + "&default_query_exec_mode=cache_describe", pg.DefaultMaxConns, 512},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool, err := pg.Connect(ctx, tt.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			if got := pool.Config().MaxConns; got != tt.maxConns {
				t.Errorf("MaxConns = %d, want %d", got, tt.maxConns)
			}
			cc := pool.Config().ConnConfig
			if cc.DescriptionCacheCapacity != tt.descriptions || cc.StatementCacheCapacity != 512 {
				t.Errorf("caches: statements %d, descriptions %d; want 512, %d",
					cc.StatementCacheCapacity, cc.DescriptionCacheCapacity, tt.descriptions)
			}
			for i := range 3 {
				var n int
				if err := pool.QueryRow(ctx, `SELECT $1::int + 1`, i).Scan(&n); err != nil || n != i+1 {
					t.Fatalf("query %d: %d, %v", i, n, err)
				}
			}
		})
	}
}

// Each service's allow-list is its own value: one service's extra role
// widens no other's, and the API roles are in every list.
func TestRolesArePerService(t *testing.T) {
	rest, other := pg.NewRoles("web_anon", ""), pg.APIRoles()
	for _, r := range []string{"anon", "authenticated", "service_role"} {
		if !rest.Allows(r) || !other.Allows(r) {
			t.Errorf("%s refused", r)
		}
	}
	if !rest.Allows("web_anon") || other.Allows("web_anon") || rest.Allows("") || rest.Allows("postgres") {
		t.Error("web_anon must be REST's alone")
	}
	err := other.Check("web_anon")
	if !errors.Is(err, pg.ErrRoleNotAllowed) || err.Error() != `role not allowed: "web_anon"` {
		t.Errorf("Check = %v", err)
	}
	c := pg.Caller{Role: "web_anon", Roles: rest}
	if _, _, err := c.Setup(); err != nil {
		t.Errorf("Setup with REST's list: %v", err)
	}
	c.Roles = other
	if _, _, err := c.Setup(); !errors.Is(err, pg.ErrRoleNotAllowed) {
		t.Errorf("Setup with another list: %v", err)
	}
}

// TestSetupAnswersNoColumns: the setup statement applies every setting but
// sends none of the values back (request.headers alone can be kilobytes
// per request), and its settings hold for the statement that follows it in
// the same pipeline.
func TestSetupAnswersNoColumns(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	ctx := context.Background()
	c := pg.Caller{Role: "anon", Method: "GET", Path: "/notes", Headers: json.RawMessage(`{"x-test":"yes"}`),
		Before: []pg.Setting{{Name: "search_path", Value: "auth, public"}},
		After:  []pg.Setting{{Name: "transaction_read_only", Value: "on"}}}
	setup, args, err := c.Setup()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.User.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	b := &pgx.Batch{}
	var fields int
	b.Queue(setup, args...).Query(func(rows pgx.Rows) error {
		fields = len(rows.FieldDescriptions())
		return nil
	})
	var role, path, hdr, ro string
	b.Queue(`SELECT current_user, current_setting('search_path'), current_setting('request.headers')::json->>'x-test', current_setting('transaction_read_only')`).
		QueryRow(func(row pgx.Row) error { return row.Scan(&role, &path, &hdr, &ro) })
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	if fields != 0 {
		t.Errorf("the setup statement answers %d columns, want none", fields)
	}
	if role != "anon" || path != "auth, public" || hdr != "yes" || ro != "on" {
		t.Errorf("after the setup: role %q, search_path %q, x-test %q, read-only %q", role, path, hdr, ro)
	}
	var after string
	if err := conn.QueryRow(ctx, `SELECT current_user::text || ' ' || current_setting('transaction_read_only') || ' ' || coalesce(nullif(current_setting('request.headers', true), ''), '-')`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != "authenticator off -" {
		t.Errorf("the next statement on the connection sees %q, want the setup gone (authenticator off -)", after)
	}
}
