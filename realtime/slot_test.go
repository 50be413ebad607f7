package realtime_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/realtime"
	"github.com/basaltdev/basalt/sql/platform"
)

// TestInvalidatedSlotIsRecreated stops the only node, lets PostgreSQL
// invalidate the unread slot for holding more WAL than
// max_slot_wal_keep_size, and checks that the next node recreates the slot
// and delivers changes again instead of failing to stream.
func TestInvalidatedSlotIsRecreated(t *testing.T) {
	t.Parallel()
	if _, err := pgcluster.FindBinDir(); err != nil {
		if os.Getenv("PGTEST_REQUIRED") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, stop, err := pgcluster.StartTemp(ctx, "pgk", map[string]string{"max_slot_wal_keep_size": "1MB"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop) // after the nodes' cleanups
	admin, err := pg.Connect(ctx, c.SocketURL("postgres", "postgres"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	if _, err := migrate.Up(ctx, admin, nil, migrate.Source{Name: "platform", FS: platform.FS}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, notesSQL); err != nil {
		t.Fatal(err)
	}
	user, err := pg.Connect(ctx, c.SocketURL("authenticator", "postgres"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(user.Close)
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	db := &pgtest.DB{Name: "postgres", Admin: admin, User: user}
	cfg := realtime.Config{PostgresChanges: true}
	first := node(t, db, keys, cfg)
	deadline := time.Now().Add(15 * time.Second)
	for !first.svc.ReadsChanges() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	first.svc.Close()

	// Nobody reads the slot while WAL moves on by whole segments.
	status := ""
	for i := 0; i < 10 && status != "lost"; i++ {
		if _, err := admin.Exec(ctx, `INSERT INTO public.notes VALUES ($1, $2, 'x', 1, NULL, NULL)`, 1000+i, userA); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Exec(ctx, `SELECT pg_switch_wal()`); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Exec(ctx, `CHECKPOINT`); err != nil {
			t.Fatal(err)
		}
		if err := admin.QueryRow(ctx, `SELECT coalesce(wal_status, '') FROM pg_replication_slots WHERE slot_name = 'basalt_realtime_postgres'`).Scan(&status); err != nil {
			t.Fatal(err)
		}
	}
	if status != "lost" {
		t.Fatalf("slot status %q, want lost", status)
	}

	second := node(t, db, keys, cfg)
	cl := second.dial(t, "2.0.0")
	subscribe(t, cl, "realtime:after", second.token(t, "service_role", "", time.Hour),
		map[string]any{"event": "INSERT", "schema": "public", "table": "notes"})
	if _, err := admin.Exec(ctx, `INSERT INTO public.notes VALUES (1, $1, 'x', 1, NULL, NULL)`, userA); err != nil {
		t.Fatal(err)
	}
	if ev := nextChange(t, cl); ev.Data.Record["id"] != float64(1) {
		t.Errorf("got %+v, want row 1", ev.Data)
	}
	if err := admin.QueryRow(ctx, `SELECT wal_status FROM pg_replication_slots WHERE slot_name = 'basalt_realtime_postgres'`).Scan(&status); err != nil || status == "lost" {
		t.Errorf("slot status %q (%v), want a usable slot", status, err)
	}
}
