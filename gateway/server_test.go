package gateway_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/basaltdev/basalt/gateway"
)

// TestServeDrains checks graceful shutdown: a request in flight when the
// stop comes still gets its full answer, and Serve then returns nil.
func TestServeDrains(t *testing.T) {
	t.Parallel()
	// The handler holds its request until the shutdown has begun, so the
	// request is in flight when the stop comes, however slow the machine.
	started, release := make(chan struct{}), make(chan struct{})
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		_, _ = io.WriteString(w, "finished")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := gateway.NewServer(slow, gateway.Timeouts{})
	shuttingDown := make(chan struct{})
	srv.RegisterOnShutdown(func() { close(shuttingDown) })
	if srv.ReadHeaderTimeout != 10*time.Second || srv.IdleTimeout != 120*time.Second {
		t.Errorf("default timeouts: header %v idle %v", srv.ReadHeaderTimeout, srv.IdleTimeout)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gateway.Serve(ctx, srv, ln, 5*time.Second) }()

	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		res, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			got <- result{err: err}
			return
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		got <- result{string(b), err}
	}()
	<-started
	cancel()
	select {
	case <-shuttingDown:
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("the stop did not begin a graceful shutdown")
	}
	close(release)
	r := <-got
	if r.err != nil || r.body != "finished" {
		t.Errorf("in-flight request: %q, %v; want it to finish", r.body, r.err)
	}
	if err := <-done; err != nil {
		t.Errorf("Serve = %v, want nil after a clean drain", err)
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Error("listener still accepting after shutdown")
	}
}
