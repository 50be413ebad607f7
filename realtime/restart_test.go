package realtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/basaltdev/basalt/realtime"
)

// TestPostgresChangesAcrossRestart stops the service in the middle of a
// stream of inserts and starts it again; the client, disconnected, joins
// its channel again on the new instance as realtime-js does. The delivery
// model (deploy/README.md): every row committed while the client was
// subscribed arrives, on one side of the restart or the other: those
// committed before the stop began, and those committed after the new
// subscription was confirmed. Rows committed while the client was
// disconnected are not replayed, and no row arrives twice.
func TestPostgresChangesAcrossRestart(t *testing.T) {
	t.Parallel()
	cfg := realtime.Config{PostgresChanges: true, MaxEventsPerSecond: 1_000_000}
	n1 := setup(t, cfg)
	if _, err := n1.db.Admin.Exec(context.Background(), notesSQL); err != nil {
		t.Fatal(err)
	}
	token := n1.token(t, "authenticated", userA, time.Hour)
	inserts := map[string]any{"event": "INSERT", "schema": "public", "table": "notes"}
	f1 := joinFeed(t, n1.dial(t, "2.0.0"), "realtime:feed", token, inserts)

	w := startWriter(n1.db.Admin, userA)
	w.waitFor(t, 100)
	beforeStop := w.committed.Load()
	n1.svc.Close()
	afterStop := w.started.Load()
	got1 := map[int64]int{}
	f1.until(t, got1, 0) // the stop closes the socket

	// The client reconnects a moment later, to the restarted service: once
	// rows were committed while it was away.
	w.waitFor(t, afterStop+20)
	n2 := node(t, n1.db, n1.keys, cfg)
	beforeJoin := w.committed.Load()
	f2 := joinFeed(t, n2.dial(t, "2.0.0"), "realtime:feed", token, inserts)
	resumed := w.started.Load()
	w.waitFor(t, resumed+100)
	last := w.finish(t)
	if _, err := n1.db.Admin.Exec(context.Background(), `INSERT INTO public.notes VALUES ($1, $2, 'sentinel', 1, NULL, NULL)`, last+1, userA); err != nil {
		t.Fatal(err)
	}
	got2 := map[int64]int{}
	f2.through(t, got2, last+1)

	if afterStop >= beforeJoin {
		t.Fatalf("no row was committed while the client was away (%d, %d)", afterStop, beforeJoin)
	}
	for id := int64(1); id <= last; id++ {
		n := got1[id] + got2[id]
		switch {
		case n > 1:
			t.Errorf("row %d arrived %d times (%d before the restart, %d after)", id, n, got1[id], got2[id])
		case id <= beforeStop && got1[id] == 0:
			t.Errorf("row %d, committed before the stop, did not arrive before it", id)
		case id > resumed && got2[id] == 0:
			t.Errorf("row %d, committed after the new subscription, did not arrive", id)
		case id > afterStop && id <= beforeJoin && n > 0:
			t.Errorf("row %d, committed while the client was away, was replayed", id)
		}
	}
	t.Logf("rows 1-%d before the stop, %d-%d while away, %d-%d after; %d and %d delivered",
		beforeStop, afterStop+1, beforeJoin, resumed+1, last, len(got1), len(got2))
}

// TestSlotOutlivesTheService checks that the replication slot stays when
// the service that read it stops (the next reader resumes from it), and
// that a service started with postgres_changes off drops it: nothing would
// confirm it and PostgreSQL would keep WAL for it forever.
func TestSlotOutlivesTheService(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: true})
	deadline := time.Now().Add(15 * time.Second)
	for !b.svc.ReadsChanges() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	b.svc.Close()
	ctx := context.Background()
	slot := "basalt_realtime_" + b.db.Name
	active := true
	for active && time.Now().Before(deadline) {
		if err := b.db.Admin.QueryRow(ctx, `SELECT active FROM pg_replication_slots WHERE slot_name = $1`, slot).Scan(&active); err != nil {
			t.Fatalf("slot %s after the service stopped: %v", slot, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	node(t, b.db, b.keys, realtime.Config{})
	var n int
	if err := b.db.Admin.QueryRow(ctx, `SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1`, slot).Scan(&n); err != nil || n != 0 {
		t.Errorf("slots named %s with postgres_changes off: %d (%v)", slot, n, err)
	}
}
