package pg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
)

// Caller is who a statement runs as and the request it runs for: the role
// to switch to and the request.* settings that RLS policies, auth.uid() and
// auth.jwt() read, as PostgREST sets them. It is the only way Basalt acts as
// a caller; every service builds one and runs its statements through
// Setup, AsCaller or QueryRowAsCaller.
type Caller struct {
	Role    string          // database role to switch to: anon, authenticated, service_role
	Claims  json.RawMessage // JWT claims object; nil means {"role":"<Role>"}
	Method  string          // request.method
	Path    string          // request.path
	Headers json.RawMessage // request.headers (see RequestHeaders); nil means {}
	Cookies json.RawMessage // request.cookies (see RequestCookies); nil means {}
	// Before are settings applied before the role switch (PostgREST's
	// search_path and the role's own settings); After, settings applied
	// after the request ones (a service's own, such as storage.operation,
	// or timezone and transaction_read_only).
	Before, After []Setting
	// Roles is the allow-list of the service the caller comes through;
	// Setup refuses a Role outside it. The zero value is the API roles.
	Roles Roles
}

// Setting is one SET LOCAL name = value.
type Setting struct{ Name, Value string }

// Roles is a service's role allow-list: the roles its callers may switch
// to. A JWT may name only these; anything else is refused before it
// reaches SET ROLE. The API roles (anon, authenticated, service_role) are
// always in it; a service adds the roles its own configuration names (REST
// an operator's REST_DB_ANON_ROLE). The zero value is the API roles alone.
// Each service owns its value, so one service's setting never widens
// another's list.
type Roles struct{ extra []string }

// apiRoles are the roles every service's callers may act as.
var apiRoles = []string{"anon", "authenticated", "service_role"}

// NewRoles is the API roles plus extra (empty names are ignored).
func NewRoles(extra ...string) Roles {
	var r Roles
	for _, e := range extra {
		if e != "" && !r.Allows(e) {
			r.extra = append(r.extra, e)
		}
	}
	return r
}

// APIRoles is the allow-list of a service that configures no role of its
// own: the API roles alone.
func APIRoles() Roles { return Roles{} }

// Allows reports whether role is one a caller may act as.
func (r Roles) Allows(role string) bool {
	return slices.Contains(apiRoles, role) || slices.Contains(r.extra, role)
}

// Check is Allows as an error: a *RoleError (errors.Is ErrRoleNotAllowed)
// naming the role, which each service answers in its own wire format.
func (r Roles) Check(role string) error {
	if r.Allows(role) {
		return nil
	}
	return &RoleError{Role: role}
}

// ErrRoleNotAllowed is what a caller whose role is outside its service's
// allow-list gets (as a *RoleError).
var ErrRoleNotAllowed = errors.New("role not allowed")

// RoleError is a role outside the allow-list.
type RoleError struct{ Role string }

func (e *RoleError) Error() string        { return fmt.Sprintf("%v: %q", ErrRoleNotAllowed, e.Role) }
func (e *RoleError) Is(target error) bool { return target == ErrRoleNotAllowed }

// CallerFromRequest builds the caller of an HTTP request: the verified
// claims' role (anon without claims), the method, the path within the
// service (the gateway strips "/rest/v1" and the like, as Supabase's gateway
// does for PostgREST), and the headers and cookies in PostgREST's encoding.
func CallerFromRequest(r *http.Request, claims *jwt.Claims) Caller {
	c := Caller{Role: "anon", Method: r.Method, Path: "/" + strings.TrimPrefix(r.URL.Path, "/"),
		Headers: RequestHeaders(r), Cookies: RequestCookies(r)}
	if claims != nil {
		if claims.Role != "" {
			c.Role = claims.Role
		}
		c.Claims = claims.Raw
	}
	return c
}

// RequestHeaders renders request.headers as PostgREST does: an object of the
// lower-cased header names with repeated values joined by ", ", Cookie left
// out (cookies have their own setting), Host added, and x-real-ip set to the
// address the gateway vouches for, so SQL never reads a client-sent one.
// HTML-sensitive characters stay as they are: the text goes to PostgreSQL.
func RequestHeaders(r *http.Request) json.RawMessage {
	m := make(map[string]string, len(r.Header)+2)
	for k, v := range r.Header {
		if lk := strings.ToLower(k); lk != "cookie" {
			m[lk] = strings.Join(v, ", ")
		}
	}
	if r.Host != "" {
		m["host"] = r.Host
	}
	m["x-real-ip"] = httpx.ClientIP(r)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// RequestCookies renders request.cookies: an object of cookie names to values.
func RequestCookies(r *http.Request) json.RawMessage {
	if _, ok := r.Header["Cookie"]; !ok {
		return json.RawMessage("{}")
	}
	cs := r.Cookies()
	if len(cs) == 0 {
		return json.RawMessage("{}")
	}
	m := make(map[string]string, len(cs))
	for _, c := range cs {
		m[c.Name] = c.Value
	}
	b, _ := json.Marshal(m)
	return b
}

// Setup returns the one statement that applies the caller's role and
// settings, as SET LOCAL, and its arguments. The text depends only on how
// many settings there are, so it is shared across callers and can be
// prepared once per connection. Run it first in a transaction or in the
// same pipeline (up to one Sync) as the statement it is for.
func (c *Caller) Setup() (string, []any, error) {
	if err := c.Roles.Check(c.Role); err != nil {
		return "", nil, err
	}
	claims := []byte(c.Claims)
	if len(claims) == 0 {
		claims, _ = json.Marshal(map[string]string{"role": c.Role})
	}
	headers, cookies := []byte(c.Headers), []byte(c.Cookies)
	if len(headers) == 0 {
		headers = []byte("{}")
	}
	if len(cookies) == 0 {
		cookies = []byte("{}")
	}
	args := make([]any, 0, 2*(6+len(c.Before)+len(c.After)))
	for _, s := range c.Before {
		args = append(args, s.Name, s.Value)
	}
	args = append(args, "role", c.Role,
		"request.jwt.claims", string(claims),
		"request.method", c.Method,
		"request.path", c.Path,
		"request.headers", string(headers),
		"request.cookies", string(cookies))
	for _, s := range c.After {
		args = append(args, s.Name, s.Value)
	}
	return SetupSQL(len(args) / 2), args, nil
}

// setupSQLs holds the setup statement by setting count.
var setupSQLs sync.Map

// SetupSQL is the setup statement for n settings: set_config(name, value,
// true) is SET LOCAL, so every setting ends with the transaction. The calls
// run in order in a subquery whose values are not selected: the statement
// answers one row without columns instead of sending every value back
// (request.headers among them), which costs PostgreSQL a column per
// setting to describe and send on each request. set_config is volatile, so
// the planner never drops the unselected calls.
func SetupSQL(n int) string {
	if q, ok := setupSQLs.Load(n); ok {
		return q.(string)
	}
	var sb strings.Builder
	sb.WriteString("SELECT FROM (SELECT ")
	for i := range n {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "set_config($%d, $%d, true)", 2*i+1, 2*i+2)
	}
	sb.WriteString(") AS setup")
	q, _ := setupSQLs.LoadOrStore(n, sb.String())
	return q.(string)
}

// AsCaller runs fn in a transaction switched to the caller's role with its
// settings applied: the form for work of several statements. The
// transaction commits when fn returns nil.
func AsCaller(ctx context.Context, db DB, c Caller, fn func(pgx.Tx) error) error {
	sql, args, err := c.Setup()
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			return fmt.Errorf("set request role and claims: %w", err)
		}
		return fn(tx)
	})
}

// Batcher is what *pgxpool.Pool, *pgxpool.Conn and *pgx.Conn offer for
// pipelining.
type Batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// QueryRowAsCaller runs one statement as the caller in a single round trip:
// the setup and the statement go out as one pipeline ending in one Sync,
// which PostgreSQL runs as one implicit transaction, so the settings hold
// for the statement and end with it. scan reads the row; pgx.ErrNoRows comes
// back as is.
func QueryRowAsCaller(ctx context.Context, db Batcher, c Caller, scan func(pgx.Row) error, sql string, args ...any) error {
	setup, setupArgs, err := c.Setup()
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(setup, setupArgs...)
	b.Queue(ForRole(c.Role, sql), args...).QueryRow(scan)
	return db.SendBatch(ctx, b).Close()
}

// ForRole is sql marked with the role it runs as, so the statement cache
// (pgx's, keyed by text) keeps one prepared statement per role. PostgreSQL
// parses and plans a statement under row-level security again whenever
// the role differs from its last run's (the rewrite applies the role's
// policies): callers of different roles taking turns on a connection
// would otherwise re-plan on every run. The mark is a leading comment,
// which pg_stat_statements ignores (it groups by the parsed query).
func ForRole(role, sql string) string {
	// A role name cannot end the comment early.
	mark := strings.ReplaceAll(strings.ReplaceAll(role, "*/", "* /"), "/*", "/ *")
	return "/* " + mark + " */ " + sql
}

// SetupTx applies the caller's role and settings to an open transaction.
func SetupTx(ctx context.Context, tx pgx.Tx, c Caller) error {
	sql, args, err := c.Setup()
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("set request role and claims: %w", err)
	}
	return nil
}
