package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m, pgtest.WithApp()) }

// env is one test's database plus helpers to act as its users.
type env struct {
	t   testing.TB
	ctx context.Context
	db  *pgtest.DB
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return &env{t: t, ctx: context.Background(), db: pgtest.NewDB(t)}
}

var userSeq atomic.Int64

// signUp inserts an auth user the way the auth service does (one statement,
// metadata filled) and returns its id.
func (e *env) signUp(role string) string {
	e.t.Helper()
	n := userSeq.Add(1)
	meta := map[string]any{"display_name": fmt.Sprintf("User %d", n), "username": fmt.Sprintf("user%d", n)}
	if role != "" {
		meta["role"] = role
	}
	return e.signUpMeta(fmt.Sprintf("user%d@example.com", n), meta)
}

func (e *env) signUpMeta(email string, meta map[string]any) string {
	e.t.Helper()
	b, err := json.Marshal(meta)
	if err != nil {
		e.t.Fatal(err)
	}
	var id string
	err = e.db.Admin.QueryRow(e.ctx, `INSERT INTO auth.users (id, aud, role, email, raw_user_meta_data, created_at, updated_at)
		VALUES (gen_random_uuid(), 'authenticated', 'authenticated', $1, $2, now(), now()) RETURNING id::text`, email, b).Scan(&id)
	if err != nil {
		e.t.Fatalf("sign up %s: %v", email, err)
	}
	return id
}

// admin creates a user and promotes them with the operator command.
func (e *env) admin() string {
	e.t.Helper()
	id := e.signUp("fan")
	e.exec(`SELECT backline.promote_to_admin($1)`, id)
	return id
}

// exec runs SQL as the database owner (fixtures).
func (e *env) exec(sql string, args ...any) {
	e.t.Helper()
	if _, err := e.db.Admin.Exec(e.ctx, sql, args...); err != nil {
		e.t.Fatalf("exec %q: %v", sql, err)
	}
}

// scalar reads one value as the database owner.
func scalar[T any](e *env, sql string, args ...any) T {
	e.t.Helper()
	var v T
	if err := e.db.Admin.QueryRow(e.ctx, sql, args...).Scan(&v); err != nil {
		e.t.Fatalf("query %q: %v", sql, err)
	}
	return v
}

// caller is who a request runs as: a user id (or "" for anon) and the
// address the gateway saw.
type caller struct {
	uid string
	ip  string
}

func (c caller) request() pg.Request {
	headers, _ := json.Marshal(map[string]string{"x-real-ip": c.ip})
	if c.uid == "" {
		return pg.Request{Role: "anon", Headers: headers}
	}
	claims, _ := json.Marshal(map[string]string{"sub": c.uid, "role": "authenticated"})
	return pg.Request{Role: "authenticated", Claims: claims, Headers: headers}
}

func service() pg.Request {
	return pg.Request{Role: "service_role"}
}

// as runs fn in a transaction as c, the way the REST layer would.
func (e *env) as(c caller, fn func(tx pgx.Tx) error) error {
	return pg.WithClaims(e.ctx, e.db.User, c.request(), fn)
}

// asUser runs one statement as c and scans one row.
func (e *env) query(c caller, sql string, args []any, dest ...any) error {
	return e.as(c, func(tx pgx.Tx) error {
		return tx.QueryRow(e.ctx, sql, args...).Scan(dest...)
	})
}

// execAs runs one statement as c and returns the rows affected.
func (e *env) execAs(c caller, sql string, args ...any) (int64, error) {
	var n int64
	err := e.as(c, func(tx pgx.Tx) error {
		tag, err := tx.Exec(e.ctx, sql, args...)
		n = tag.RowsAffected()
		return err
	})
	return n, err
}
