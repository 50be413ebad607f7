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
