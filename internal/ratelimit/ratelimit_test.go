package ratelimit_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/internal/ratelimit"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func TestWindow(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	l := ratelimit.New(db.Admin, clk.now)
	allow := func(key string) bool {
		t.Helper()
		ok, err := l.Allow(ctx, key, 3, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for i := range 3 {
		if !allow("ip|a") {
			t.Fatalf("hit %d refused within the budget", i+1)
		}
	}
	if allow("ip|a") {
		t.Fatal("fourth hit in the window allowed")
	}
	if !allow("ip|b") {
		t.Fatal("another key shares the first one's budget")
	}
	clk.add(59 * time.Second)
	if allow("ip|a") {
		t.Fatal("allowed before the window ended")
	}
	clk.add(time.Second)
	if !allow("ip|a") {
		t.Fatal("refused after the window ended")
	}
}

// TestSharedAcrossNodes: two limiters (two nodes) on one database, racing,
// admit exactly the budget between them.
func TestSharedAcrossNodes(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	nodes := []*ratelimit.Store{ratelimit.New(db.Admin, nil), ratelimit.New(db.Admin, nil)}
	var allowed atomic.Int32
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := nodes[i%2].Allow(ctx, "token|198.51.100.1", 10, time.Hour)
			if err != nil {
				t.Error(err)
			}
			if ok {
				allowed.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := allowed.Load(); n != 10 {
		t.Fatalf("%d of 40 racing hits allowed across two nodes, want exactly 10", n)
	}
}

// TestTakeAll counts budgets in order and stops at the first that refuses:
// a caller refused by its own share uses up nothing of the shared one.
func TestTakeAll(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	l := ratelimit.New(db.Admin, clk.now)
	take := func(own string) int {
		t.Helper()
		refused, end, err := l.TakeAll(ctx, []ratelimit.Budget{{Key: own, Max: 2}, {Key: "shared", Max: 3}}, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if want := clk.now().Add(time.Second); !end.Equal(want) {
			t.Errorf("window ends %v, want %v", end, want)
		}
		return refused
	}
	for i := range 2 {
		if got := take("a"); got != -1 {
			t.Fatalf("a's hit %d refused by budget %d", i+1, got)
		}
	}
	for range 10 {
		if got := take("a"); got != 0 {
			t.Fatalf("a over its share: refused by budget %d, want 0 (its own)", got)
		}
	}
	// a's refused hits did not count toward the shared budget: b gets the
	// one left, then the shared budget refuses.
	if got := take("b"); got != -1 {
		t.Fatalf("b refused by budget %d while the shared budget had room", got)
	}
	if got := take("b"); got != 1 {
		t.Fatalf("b's second hit: refused by %d, want 1 (the shared budget)", got)
	}
	clk.add(time.Second)
	if got := take("a"); got != -1 {
		t.Fatalf("a refused by %d in a new window", got)
	}
}
