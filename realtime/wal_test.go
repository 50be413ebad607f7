package realtime_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/realtime"
)

// TestWithoutLogicalReplication checks that against a database without
// wal_level=logical the service starts with postgres_changes off, says so
// in one log line, and answers subscriptions with a system error.
func TestWithoutLogicalReplication(t *testing.T) {
	t.Parallel()
	if _, err := pgcluster.FindBinDir(); err != nil {
		if os.Getenv("PGTEST_REQUIRED") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, stop, err := pgcluster.StartTemp(ctx, "pgw", map[string]string{"wal_level": "replica"})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	db, err := pg.Connect(ctx, c.SocketURL("postgres", "postgres"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	svc, err := realtime.New(realtime.Config{PostgresChanges: true}, db, db, keys,
		realtime.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer svc.Close()
	if lines := strings.Split(strings.TrimSpace(logs.String()), "\n"); len(lines) != 1 ||
		!strings.Contains(lines[0], "postgres_changes are off") || !strings.Contains(lines[0], "wal_level=replica") {
		t.Errorf("log = %q, want one line about wal_level", logs.String())
	}
	if svc.ReadsChanges() {
		t.Error("reads changes without logical replication")
	}
}

// TestWithoutReplicationRole checks that a database role without
// REPLICATION turns postgres_changes off with one log line instead of
// failing to create its slot over and over.
func TestWithoutReplicationRole(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	// authenticator stands in for an admin role without REPLICATION.
	svc, err := realtime.New(realtime.Config{PostgresChanges: true}, db.User, db.User, keys,
		realtime.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer svc.Close()
	if lines := strings.Split(strings.TrimSpace(logs.String()), "\n"); len(lines) != 1 ||
		!strings.Contains(lines[0], "may not read a replication slot") {
		t.Errorf("log = %q, want one line about the role", logs.String())
	}
}
