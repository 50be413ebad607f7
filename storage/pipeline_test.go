package storage_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/storage"
)

// TestPipelinesLeaveTheConnectionClean runs the one-round-trip policy
// pipelines on a user pool of a single connection: failed probes (denied by
// RLS, key taken) must neither commit anything nor leave the role, the
// claims or an aborted transaction behind for the next request, and must
// not cost the pool its connection.
func TestPipelinesLeaveTheConnectionClean(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.NewDB(t)
	cfg, err := pgxpool.ParseConfig(db.UserURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	user, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(user.Close)
	clk := &clock{t: time.Now()}
	keys, err := jwt.Generate(clk.now())
	if err != nil {
		t.Fatal(err)
	}
	svc, err := storage.New(storage.Config{}, db.Admin, user, keys, newBackend(t, "fs"), storage.WithClock(clk.now))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, svc: svc, db: db, keys: keys, clock: clk, service: keys.ServiceRoleKey, anon: keys.AnonKey}
	e.alice, e.bob = e.userToken(alice), e.userToken(bob)
	e.bucket("private", false)
	e.sql(ownFolderPolicies)

	aliceFile := alice + "/a.txt"
	if rec := e.put(e.alice, "private", aliceFile, "text/plain", []byte("one"), false); rec.Code != 200 {
		t.Fatalf("alice upload = %d %s", rec.Code, rec.Body)
	}
	for range 3 {
		// Denied by RLS, then refused as a duplicate: both fail inside the
		// pipeline, before its ROLLBACK.
		wantErr(t, e.put(e.bob, "private", aliceFile, "text/plain", []byte("x"), true), 400, "403", "AccessDenied",
			"new row violates row-level security policy")
		wantErr(t, e.put(e.alice, "private", aliceFile, "text/plain", []byte("x"), false), 400, "409", "KeyAlreadyExists",
			"The resource already exists")
		// A read that RLS hides, then one it allows.
		wantErr(t, e.get(e.bob, "private", aliceFile, nil), 400, "404", "NoSuchKey", "Object not found")
		if got := e.get(e.alice, "private", aliceFile, nil).Body.String(); got != "one" {
			t.Fatalf("alice reads %q", got)
		}
	}

	var role, claims, op string
	if err := user.QueryRow(ctx, `SELECT current_user::text, coalesce(current_setting('request.jwt.claims', true), ''),
		coalesce(current_setting('storage.operation', true), '')`).Scan(&role, &claims, &op); err != nil {
		t.Fatal(err)
	}
	if role != "authenticator" || claims != "" || op != "" {
		t.Errorf("after the pipelines the connection runs as %q with claims %q and operation %q; want authenticator and none",
			role, claims, op)
	}
	if n := e.count(`SELECT count(*) FROM storage.objects`); n != 1 {
		t.Errorf("objects = %d, want 1: a probe committed its row", n)
	}
	if n := user.Stat().NewConnsCount(); n != 1 {
		t.Errorf("the pool opened %d connections, want 1: a failed probe cost the pool its connection", n)
	}
}

// TestReadTargetIsNotForAPIRoles checks that the security-definer function
// the read pipeline starts with cannot be called by SQL running as an API
// role: it would show bucket settings and public rows past RLS.
func TestReadTargetIsNotForAPIRoles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.NewDB(t)
	for _, role := range []string{"anon", "authenticated", "service_role"} {
		err := pg.AsCaller(ctx, db.User, pg.Caller{Role: role}, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `SELECT * FROM storage.read_target('b', 'x')`)
			return err
		})
		if !pg.Is(err, "42501") {
			t.Errorf("%s calling storage.read_target: err = %v, want permission denied", role, err)
		}
	}
	var n int
	if err := db.User.QueryRow(ctx, `SELECT count(*) FROM storage.read_target('b', 'x')`).Scan(&n); err != nil || n != 0 {
		t.Errorf("authenticator calling storage.read_target: %d rows, %v; want 0 rows and no error", n, err)
	}
}

// TestUploadErrorPrecedence checks that the bucket lookup and the policy
// test sharing one round trip do not change which error an upload that
// breaks several rules gets: a missing bucket first, then the request and
// the bucket's rules, and the policy verdict last.
func TestUploadErrorPrecedence(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "fs")
	e.bucket("private", false, map[string]any{"allowed_mime_types": []string{"image/*"}, "file_size_limit": 8})
	e.sql(ownFolderPolicies)
	notMine := bob + "/x.png" // alice may not write in bob's folder
	tests := []struct {
		name, bucket, path, contentType string
		header                          map[string]string
		body                            string
		status                          string
		code, message                   string
	}{
		{"missing bucket before bad metadata", "nope", notMine, "image/png", map[string]string{"x-metadata": "%%%"}, "x",
			"404", "NoSuchBucket", "Bucket not found"},
		{"bad metadata before the bucket's rules", "private", notMine, "text/plain", map[string]string{"x-metadata": "%%%"}, "x",
			"400", "InvalidRequest", "Invalid metadata"},
		{"size before mime type", "private", notMine, "text/plain", nil, "more than eight bytes",
			"413", "EntityTooLarge", "The object exceeded the maximum allowed size"},
		{"mime type before the policy", "private", notMine, "text/plain", nil, "x",
			"415", "InvalidMimeType", "mime type text/plain is not supported"},
		{"the policy last", "private", notMine, "image/png", nil, "x",
			"403", "AccessDenied", "new row violates row-level security policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := map[string]string{"Content-Type": tt.contentType}
			for k, v := range tt.header {
				hdr[k] = v
			}
			rec := e.do(req{method: "POST", path: "/object/" + tt.bucket + "/" + tt.path, token: e.alice,
				body: strings.NewReader(tt.body), header: hdr})
			wantErr(t, rec, 400, tt.status, tt.code, tt.message)
		})
	}
	if n := e.count(`SELECT count(*) FROM storage.objects`); n != 0 {
		t.Errorf("objects = %d after refused uploads, want 0", n)
	}
}
