package realtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/realtime"
)

// TestReadyAtJoinReply checks what a client may count on once it has the
// join's ok reply (realtime-js reports SUBSCRIBED then): a broadcast
// another client sends at that instant, and a row committed at that
// instant, both reach it. Each round joins a fresh topic and acts on the
// reply with no pause, many times over; the first starts as the node
// does, before it reads the replication slot (clients rejoining a
// restarted node).
func TestReadyAtJoinReply(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: true, MaxJoinsPerSecond: 1 << 20, MaxEventsPerSecond: 1 << 30})
	ctx := context.Background()
	if _, err := b.db.Admin.Exec(ctx, notesSQL); err != nil {
		t.Fatal(err)
	}
	token := b.token(t, "authenticated", userA, time.Hour)
	sender := b.dial(t, "2.0.0")
	joiner := b.dial(t, "1.0.0")
	const rounds = 40
	for i := range rounds {
		topic := fmt.Sprintf("realtime:ready-%d", i)
		ref := fmt.Sprint(i + 1)
		sender.join(ref, topic, map[string]any{"config": map[string]any{}})
		joiner.push(ref, ref, topic, "phx_join", map[string]any{"access_token": token, "config": map[string]any{
			"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "notes", "filter": "user_id=eq." + userA}}}})
		if reply := joiner.expect(`"phx_reply"`, topic); !strings.Contains(reply, `"status":"ok"`) {
			t.Fatalf("join %d: %s", i, reply)
		}
		sender.push(ref, nil, topic, "broadcast", map[string]any{"type": "broadcast", "event": "hello", "payload": map[string]any{"round": i}})
		if _, err := b.db.Admin.Exec(ctx, `INSERT INTO public.notes VALUES ($1, $2, 'x', 1, NULL, NULL)`, i+1, userA); err != nil {
			t.Fatal(err)
		}
		gotBroadcast, gotChange := false, false
		until := time.Now().Add(3 * time.Second)
		for (!gotBroadcast || !gotChange) && time.Now().Before(until) {
			data, _, err := joiner.frame(time.Until(until))
			if err != nil {
				break
			}
			var msg struct {
				Topic   string          `json:"topic"`
				Event   string          `json:"event"`
				Payload json.RawMessage `json:"payload"`
			}
			if json.Unmarshal(data, &msg) != nil || msg.Topic != topic {
				continue
			}
			switch msg.Event {
			case "broadcast":
				var p struct {
					Payload struct{ Round int } `json:"payload"`
				}
				gotBroadcast = gotBroadcast || json.Unmarshal(msg.Payload, &p) == nil && p.Payload.Round == i
			case "postgres_changes":
				var ev event
				gotChange = gotChange || json.Unmarshal(msg.Payload, &ev) == nil && ev.Data.Record["id"] == float64(i+1)
			}
		}
		if !gotBroadcast || !gotChange {
			// (A read that timed out leaves the socket unusable.)
			t.Fatalf("round %d of %d: broadcast received %v, change received %v", i, rounds, gotBroadcast, gotChange)
		}
		joiner.push(ref, "l"+ref, topic, "phx_leave", map[string]any{})
	}
}
