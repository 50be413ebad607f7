package realtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/realtime"
)

// TestPostgresChangesWait checks postgres_changes_options.wait: the join
// reply waits until the subscription is live (a row inserted right after
// it arrives, even on a service that just started), then "Subscribed to
// PostgreSQL" follows; bindings the database refuses, or no slot reader
// before the timeout, fail the join with the reference's reasons; a join
// without postgres_changes is not held.
func TestPostgresChangesWait(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.NewDB(t)
	if _, err := db.Admin.Exec(ctx, notesSQL); err != nil {
		t.Fatal(err)
	}
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// The first join comes right after the service started, before it
	// reads the slot.
	b := node(t, db, keys, realtime.Config{PostgresChanges: true})
	join := func(bindings []any, timeout any) map[string]any {
		return map[string]any{"access_token": b.token(t, "service_role", "", time.Hour),
			"config": map[string]any{"postgres_changes": bindings,
				"postgres_changes_options": map[string]any{"wait": true, "timeout": timeout}}}
	}
	inserts := map[string]any{"event": "INSERT", "schema": "public", "table": "notes"}
	c := b.dial(t, "2.0.0")
	if reply := c.join("1", "realtime:w", join([]any{inserts}, 5000)); !strings.Contains(reply, `"status":"ok"`) {
		t.Fatalf("join: %s", reply)
	}
	if _, err := b.db.Admin.Exec(ctx, `INSERT INTO public.notes VALUES (1, $1, 'x', 1, NULL, NULL)`, userA); err != nil {
		t.Fatal(err)
	}
	if msg := c.next(); !strings.Contains(msg, `"Subscribed to PostgreSQL"`) {
		t.Errorf("after the reply: %s, want the subscription", msg)
	}
	if ev := nextChange(t, c); ev.Data.Record["id"] != float64(1) {
		t.Errorf("got %+v, want row 1", ev.Data)
	}

	missing := map[string]any{"event": "*", "schema": "public", "table": "missing"}
	reply := c.join("2", "realtime:m", join([]any{missing}, "2000"))
	want := `"reason":"RealtimeDisabledForConfiguration: Unable to subscribe to changes with given parameters. ` +
		`Please check Realtime is enabled for the given connect parameters: [event: *, schema: public, table: missing, filters: [], select: nil]"`
	if !strings.Contains(reply, `"status":"error"`) || !strings.Contains(reply, want) {
		t.Errorf("join with a refused binding: %s", reply)
	}

	// Without a slot reader nothing subscribes: the join times out.
	off := node(t, b.db, b.keys, realtime.Config{})
	o := off.dial(t, "1.0.0")
	start := time.Now()
	reply = o.join("1", "realtime:o", join([]any{inserts}, 300))
	if !strings.Contains(reply, `"reason":"PostgresChangesSubscribeTimeout: Timed out after 300ms waiting for the postgres_changes subscription"`) {
		t.Errorf("join without a reader: %s", reply)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("timed out after %v, want 300ms", d)
	}
	if reply := o.join("2", "realtime:p", join([]any{}, 300)); !strings.Contains(reply, `"status":"ok"`) {
		t.Errorf("join without bindings: %s", reply)
	}
}
