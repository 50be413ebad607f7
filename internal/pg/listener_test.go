package pg_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// recorder collects what a subscriber heard, and signals each event.
type recorder struct {
	mu     sync.Mutex
	events []string
	seen   chan struct{}
}

func newRecorder() *recorder { return &recorder{seen: make(chan struct{}, 1)} }

func (r *recorder) add(e string) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	pg.Poke(r.seen)
}

func (r *recorder) handler(payloads bool) pg.Handler {
	return pg.Handler{
		Payloads:  payloads,
		Notify:    func(p string) { r.add("n:" + p) },
		Connected: func() { r.add("connected") },
		Lost:      func() { r.add("lost") },
	}
}

func (r *recorder) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// waitFor waits until ok holds of the events heard.
func (r *recorder) waitFor(t *testing.T, what string, ok func([]string) bool) []string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if ev := r.snapshot(); ok(ev) {
			return ev
		}
		select {
		case <-r.seen:
		case <-deadline:
			t.Fatalf("%s: never happened; heard %q", what, r.snapshot())
		}
	}
}

func count(ev []string, e string) int {
	n := 0
	for _, x := range ev {
		if x == e {
			n++
		}
	}
	return n
}

func has(e string, n int) func([]string) bool {
	return func(ev []string) bool { return count(ev, e) >= n }
}

func notify(t *testing.T, db *pgtest.DB, channel string, payloads ...string) {
	t.Helper()
	sql := ""
	for _, p := range payloads {
		sql += fmt.Sprintf("SELECT pg_notify('%s', '%s');", channel, p)
	}
	if _, err := db.Admin.Exec(context.Background(), sql); err != nil {
		t.Fatal(err)
	}
}

func listenerBackends(t *testing.T, db *pgtest.DB) []int {
	t.Helper()
	rows, err := db.Admin.Query(context.Background(),
		`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`, pg.ListenerName)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return pids
}

// TestListenerChannels: several channels on one connection, payloads in
// order, a subscriber added while connected, and a reconnect after the
// backend is killed, after which every subscriber hears Connected again
// and notifications arrive.
func TestListenerChannels(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	l := pg.NewListener(db.Admin, nil)
	defer l.Close()
	a, b := newRecorder(), newRecorder()
	l.Subscribe("chan_a", a.handler(true))
	l.Subscribe("chan b", b.handler(false)) // a name that needs quoting
	a.waitFor(t, "a connected", has("connected", 1))
	b.waitFor(t, "b connected", has("connected", 1))
	// Added while connected: LISTENed at once, told it is in effect.
	c := newRecorder()
	l.Subscribe("chan_c", c.handler(true))
	c.waitFor(t, "c connected", has("connected", 1))
	if pids := listenerBackends(t, db); len(pids) != 1 {
		t.Fatalf("listener backends %v, want one", pids)
	}

	var want []string
	var payloads []string
	for i := range 100 {
		payloads = append(payloads, strconv.Itoa(i))
		want = append(want, "n:"+strconv.Itoa(i))
	}
	notify(t, db, "chan_a", payloads...)
	notify(t, db, "chan_c", "c1")
	notify(t, db, "chan b", "x")
	ev := a.waitFor(t, "a's payloads", has("n:99", 1))
	if got := ev[1:]; !slices.Equal(got, want) {
		t.Fatalf("a heard %q, want connected then 0..99 in order", ev)
	}
	c.waitFor(t, "c's payload", has("n:c1", 1))
	b.waitFor(t, "b's signal", has("n:", 1))

	pids := listenerBackends(t, db)
	var killed bool
	if err := db.Admin.QueryRow(context.Background(), `SELECT pg_terminate_backend($1)`, pids[0]).Scan(&killed); err != nil || !killed {
		t.Fatalf("terminate %v: %v %v", pids, killed, err)
	}
	for name, r := range map[string]*recorder{"a": a, "b": b, "c": c} {
		ev := r.waitFor(t, name+" reconnected", has("connected", 2))
		if i := slices.Index(ev, "lost"); i < 0 || i > slices.Index(ev[1:], "connected")+1 {
			t.Fatalf("%s heard %q: want lost before the second connected", name, ev)
		}
	}
	if now := listenerBackends(t, db); len(now) != 1 || now[0] == pids[0] {
		t.Fatalf("listener backends after the kill %v (killed %d)", now, pids[0])
	}
	notify(t, db, "chan_a", "after")
	notify(t, db, "chan b", "after")
	a.waitFor(t, "a after reconnect", has("n:after", 1))
	b.waitFor(t, "b after reconnect", has("n:", 2))
}

// TestListenerSlowSubscribers: a subscriber stuck in its handler delays
// neither the reader nor the other subscribers; a signal subscriber's
// notifications coalesce meanwhile; a payload subscriber that falls more
// than its queue behind hears Lost, then Connected once it has drained.
func TestListenerSlowSubscribers(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	l := pg.NewListener(db.Admin, nil)
	defer l.Close()

	gate := make(chan struct{})
	entered := make(chan string, 2)
	var sigCalls, slowCalls []string
	var mu sync.Mutex
	stuck := func(name string, calls *[]string) func(string) {
		first := true
		return func(p string) {
			mu.Lock()
			*calls = append(*calls, "n:"+p)
			mu.Unlock()
			if first {
				first = false
				entered <- name
				<-gate
			}
		}
	}
	sigDone := newRecorder()
	sigNotify := stuck("sig", &sigCalls)
	sig := l.Subscribe("work", pg.Handler{Notify: func(p string) { sigNotify(p); sigDone.add("n:") }, Connected: func() { sigDone.add("connected") }})
	slowRec := newRecorder()
	slowNotify := stuck("slow", &slowCalls)
	slow := l.Subscribe("pins", pg.Handler{Payloads: true, Queue: 5,
		Notify:    func(p string) { slowNotify(p); slowRec.add("n:" + p) },
		Connected: func() { slowRec.add("connected") },
		Lost:      func() { slowRec.add("lost") },
	})
	fast := newRecorder()
	l.Subscribe("pins", fast.handler(true))
	sigDone.waitFor(t, "sig connected", has("connected", 1))
	slowRec.waitFor(t, "slow connected", has("connected", 1))
	fast.waitFor(t, "fast connected", has("connected", 1))

	notify(t, db, "work", "w0")
	notify(t, db, "pins", "p0")
	<-entered
	<-entered
	// Both are stuck in their first call; more arrives.
	var ps []string
	for i := 1; i <= 20; i++ {
		notify(t, db, "work", "w"+strconv.Itoa(i))
		ps = append(ps, "p"+strconv.Itoa(i))
	}
	notify(t, db, "pins", ps...)
	// The fast subscriber of the same channel hears everything meanwhile.
	fast.waitFor(t, "fast heard p20", has("n:p20", 1))
	// The reader has dispatched every "work" notification (sent before
	// the pins): they wait as one.
	if n := pg.Pending(sig); n != 1 {
		t.Fatalf("signal subscriber has %d events waiting, want 1 (coalesced)", n)
	}
	close(gate)
	sigDone.waitFor(t, "coalesced signal", has("n:", 2))
	ev := slowRec.waitFor(t, "slow drained", has("connected", 2))
	want := []string{"connected", "n:p0", "n:p1", "n:p2", "n:p3", "n:p4", "n:p5", "lost", "connected"}
	if !slices.Equal(ev, want) {
		t.Fatalf("slow subscriber heard %q, want %q", ev, want)
	}
	// Past the gap it hears notifications again.
	notify(t, db, "pins", "p21")
	slowRec.waitFor(t, "slow after the gap", has("n:p21", 1))
	slow.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(sigCalls) != 2 {
		t.Fatalf("signal subscriber called %d times for 21 notifications, want 2", len(sigCalls))
	}
}
