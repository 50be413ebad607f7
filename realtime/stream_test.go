package realtime_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// writer inserts numbered notes (ids 1, 2, …), one transaction each,
// until finished. started is the last id whose INSERT began, committed
// the last whose commit returned.
type writer struct {
	started, committed atomic.Int64
	stop               chan struct{}
	done               chan error
}

func startWriter(db *pgxpool.Pool, user string) *writer {
	w := &writer{stop: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		for i := int64(1); ; i++ {
			select {
			case <-w.stop:
				w.done <- nil
				return
			default:
			}
			w.started.Store(i)
			if _, err := db.Exec(context.Background(), `INSERT INTO public.notes VALUES ($1, $2, 'n', 1, NULL, NULL)`, i, user); err != nil {
				w.done <- err
				return
			}
			w.committed.Store(i)
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return w
}

// waitFor waits until row n is committed.
func (w *writer) waitFor(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for w.committed.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the writer is stuck at %d, waiting for %d", w.committed.Load(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// finish stops the writer and returns the last row committed.
func (w *writer) finish(t *testing.T) int64 {
	t.Helper()
	close(w.stop)
	if err := <-w.done; err != nil {
		t.Fatalf("writer: %v", err)
	}
	return w.committed.Load()
}

// feed is what a client subscribed to notes INSERTs receives: each
// event's record id, until the socket closes.
type feed struct {
	ids        chan int64
	subscribed chan struct{} // closed at "Subscribed to PostgreSQL"
}

// joinFeed joins topic on c with one postgres_changes binding and waits
// for the subscription; every event from the join on is in the feed.
func joinFeed(t *testing.T, c *client, topic, token string, binding map[string]any) *feed {
	t.Helper()
	f := &feed{ids: make(chan int64, 100000), subscribed: make(chan struct{})}
	go f.read(c)
	c.push("1", "1", topic, "phx_join", map[string]any{"access_token": token,
		"config": map[string]any{"postgres_changes": []any{binding}}})
	select {
	case <-f.subscribed:
	case <-time.After(15 * time.Second):
		t.Fatal("no subscription")
	}
	return f
}

func (f *feed) read(c *client) {
	defer close(f.ids)
	subscribed := false
	for {
		data, _, err := c.frame(time.Minute)
		if err != nil {
			return
		}
		name, payload := frameEvent(c.vsn, data)
		switch name {
		case "system":
			if !subscribed && strings.Contains(string(payload), `"Subscribed to PostgreSQL"`) {
				subscribed = true
				close(f.subscribed)
			}
		case "postgres_changes":
			var ev event
			if json.Unmarshal(payload, &ev) == nil {
				if id, ok := ev.Data.Record["id"].(float64); ok {
					f.ids <- int64(id)
				}
			}
		}
	}
}

// frameEvent reads a text frame's event and payload in either version.
func frameEvent(vsn string, data []byte) (string, json.RawMessage) {
	if vsn == "2.0.0" {
		var msg []json.RawMessage
		var event string
		if json.Unmarshal(data, &msg) != nil || len(msg) != 5 || json.Unmarshal(msg[3], &event) != nil {
			return "", nil
		}
		return event, msg[4]
	}
	var msg struct {
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
	}
	_ = json.Unmarshal(data, &msg)
	return msg.Event, msg.Payload
}

// through counts the ids of the feed into got until the sentinel row
// arrives (not counted). Insert the sentinel after the rows being counted:
// changes arrive in commit order, so every earlier row, and any second copy
// of one, has arrived before it.
func (f *feed) through(t *testing.T, got map[int64]int, sentinel int64) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case id, ok := <-f.ids:
			if !ok {
				t.Fatalf("the socket closed before the sentinel row %d (%d rows so far)", sentinel, len(got))
			}
			if id == sentinel {
				return
			}
			got[id]++
		case <-deadline:
			t.Fatalf("gave up waiting for the sentinel row %d (%d rows so far)", sentinel, len(got))
		}
	}
}

// until counts the ids of the feed into got until the socket closes, or,
// with last > 0, until id last arrived and nothing more came for 300 ms.
func (f *feed) until(t *testing.T, got map[int64]int, last int64) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	var quiet <-chan time.Time
	for {
		select {
		case id, ok := <-f.ids:
			if !ok {
				return
			}
			got[id]++
			if last > 0 && id >= last {
				quiet = time.After(300 * time.Millisecond)
			}
		case <-quiet:
			return
		case <-deadline:
			t.Fatalf("gave up waiting for row %d (%d rows so far)", last, len(got))
		}
	}
}
