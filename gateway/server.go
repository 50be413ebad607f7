package gateway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Timeouts are the HTTP server limits. Read and write timeouts default to
// none because uploads, downloads and websockets legitimately run long; the
// header timeout and idle timeout bound slow or idle clients.
type Timeouts struct {
	ReadHeader time.Duration // default 10s
	Read       time.Duration // 0: none
	Write      time.Duration // 0: none
	Idle       time.Duration // default 120s
	Shutdown   time.Duration // drain time on stop, default 15s
}

func (t Timeouts) withDefaults() Timeouts {
	if t.ReadHeader == 0 {
		t.ReadHeader = 10 * time.Second
	}
	if t.Idle == 0 {
		t.Idle = 120 * time.Second
	}
	if t.Shutdown == 0 {
		t.Shutdown = 15 * time.Second
	}
	return t
}

// NewServer returns an http.Server for h with the timeouts set.
func NewServer(h http.Handler, t Timeouts) *http.Server {
	t = t.withDefaults()
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    1 << 20,
	}
}

// Serve runs srv on ln until ctx ends, then stops accepting connections and
// waits up to drain for in-flight requests before closing the rest.
// It returns nil after a clean shutdown.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, drain time.Duration) error {
	if drain == 0 {
		drain = 15 * time.Second
	}
	// Serve returns ErrServerClosed once Shutdown starts; anything else
	// (a closed listener) is a real failure and ends the process.
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// Drain time is over: cut the remaining connections rather than
		// hang the stop (and Postgres's clean shutdown after it).
		_ = srv.Close()
		return fmt.Errorf("drain %s: %w", ln.Addr(), err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	}
	return nil
}
