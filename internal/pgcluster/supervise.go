package pgcluster

import (
	"context"
	"log/slog"
	"time"
)

// Default restart back-off of a Supervisor.
const (
	DefaultMinDelay = 500 * time.Millisecond
	DefaultMaxDelay = 30 * time.Second
)

// Supervisor keeps a cluster's server running. When the server exits
// without Stop having asked it to (a crash, a kill, the OOM killer, a
// "pg_ctl stop" by hand), it logs how the process ended and the last lines
// of the server log, then starts the server again: it waits MinDelay before
// the first attempt and doubles the wait after each failed attempt, up to
// MaxDelay. A server that crashes again soon after a restart keeps the
// longer wait; one that stayed up for MaxDelay starts over from MinDelay.
type Supervisor struct {
	Cluster  *Cluster
	Log      *slog.Logger  // nil discards
	MinDelay time.Duration // default DefaultMinDelay
	MaxDelay time.Duration // default DefaultMaxDelay
}

// Run supervises the server that Cluster.Start started until ctx ends or
// Stop stops the server; with no server started yet, it starts one. Run
// never stops the server itself: callers cancel ctx, wait for Run to
// return, then call Stop, so a restart can never race the shutdown.
func (s *Supervisor) Run(ctx context.Context) {
	log := s.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	minDelay, maxDelay := s.MinDelay, s.MaxDelay
	if minDelay <= 0 {
		minDelay = DefaultMinDelay
	}
	if maxDelay < minDelay {
		maxDelay = max(DefaultMaxDelay, minDelay)
	}
	delay := minDelay
	for {
		down := time.Now()
		if srv := s.Cluster.srv.Load(); srv != nil {
			select {
			case <-ctx.Done():
				return
			case <-srv.done:
			}
			if ctx.Err() != nil || srv.stopping.Load() {
				return
			}
			down = time.Now()
			up := down.Sub(srv.started)
			if up >= maxDelay {
				delay = minDelay
			}
			log.Warn("postgres exited unexpectedly; restarting it", "pid", srv.pid, "status", srv.status(),
				"up_for", up.Round(time.Millisecond).String(), "restart_in", delay.String(),
				"server_log", s.Cluster.logTail(srv, 10))
		}
		if !s.restart(ctx, log, down, &delay, maxDelay) {
			return
		}
	}
}

// restart starts the server, waiting *delay before each attempt and
// doubling it (up to maxDelay) after each, until a start succeeds (true) or
// ctx ends (false). down is when the server was found gone.
func (s *Supervisor) restart(ctx context.Context, log *slog.Logger, down time.Time, delay *time.Duration, maxDelay time.Duration) bool {
	for attempt := 1; ; attempt++ {
		t := time.NewTimer(*delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
		err := s.Cluster.Start(ctx)
		*delay = min(2**delay, maxDelay)
		if err == nil {
			srv := s.Cluster.srv.Load()
			log.Info("postgres restarted", "pid", srv.pid, "attempts", attempt,
				"down_for", time.Since(down).Round(time.Millisecond).String())
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		log.Warn("postgres restart failed", "attempt", attempt, "err", err.Error(), "retry_in", delay.String())
	}
}
