package replica

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/basaltdev/basalt/internal/pg"
)

// sample is the primary's WAL write position and when it was asked for.
type sample struct {
	at  time.Time
	lsn uint64
}

// health values, logged on change.
const (
	healthUnknown int32 = iota
	healthOK
	healthLag
	healthDown
)

func (r *Router) pollLoop(ctx context.Context) {
	t := time.NewTicker(r.cfg.Poll)
	defer t.Stop()
	for {
		r.pollOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// queryTimeout bounds one poll's queries: a hung replica must not stop the
// lag from being noticed (it grows on its own) nor pile up polls.
func (r *Router) queryTimeout() time.Duration {
	return max(time.Second, r.cfg.Poll)
}

// pollOnce samples the primary, then the replica, and moves caughtUp.
func (r *Router) pollOnce(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, r.queryTimeout())
	defer cancel()
	at := time.Now()
	// The insert position, not the write or flush one: with
	// synchronous_commit off a commit returns before its record is
	// written, and the sample must cover every commit made before it.
	var text string
	var block, segment uint64
	err := r.primary.QueryRow(ctx, `SELECT pg_current_wal_insert_lsn()::text, current_setting('wal_block_size')::int8,
		pg_size_bytes(current_setting('wal_segment_size'))`).Scan(&text, &block, &segment)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Debug("read replica: primary WAL position", "err", err)
		}
		return // nothing to compare with; the lag grows meanwhile
	}
	primary, err := parseLSN(text)
	if err != nil {
		r.log.Warn("read replica: primary WAL position", "err", err)
		return
	}
	primary = recordEnd(primary, block, segment)
	var replayed *string
	if err := r.replica.QueryRow(ctx, "SELECT pg_last_wal_replay_lsn()::text").Scan(&replayed); err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return // shutting down
		}
		r.markDown("unreachable: " + err.Error())
		return
	}
	if replayed == nil {
		// A primary (or a promoted standby) has no replay position: it is
		// not following this primary, so its data cannot be trusted here.
		r.markDown("not a standby (pg_last_wal_replay_lsn() is null)")
		return
	}
	pos, err := parseLSN(*replayed)
	if err != nil {
		r.markDown(err.Error())
		return
	}
	r.samples = append(r.samples, sample{at, primary})
	caughtUp := r.poll.Load().caughtUp
	keep := 0
	for i, s := range r.samples {
		if s.lsn <= pos {
			if s.at.After(caughtUp) {
				caughtUp = s.at
			}
			keep = i + 1
		}
	}
	r.samples = r.samples[keep:]
	// A replica far behind would keep every sample; older ones only ever
	// give an older caughtUp, so dropping them errs on the primary's side.
	if limit := int(2*r.cfg.MaxLag/r.cfg.Poll) + 16; len(r.samples) > limit {
		r.samples = append(r.samples[:0], r.samples[len(r.samples)-limit:]...)
	}
	r.poll.Store(&pollState{up: true, caughtUp: caughtUp})
	r.forgetPins(caughtUp)
	r.m.up.Set(1)
	if caughtUp.IsZero() {
		return // the replica has not replayed a first sample yet
	}
	lag := time.Since(caughtUp)
	r.m.lag.Set(lag.Seconds())
	if lag > r.cfg.MaxLag {
		if r.health.Swap(healthLag) != healthLag {
			r.log.Warn("read replica behind: reads go to the primary", "lag", lag.Round(time.Millisecond).String(), "max_lag", r.cfg.MaxLag.String())
		}
	} else if r.health.Swap(healthOK) != healthOK {
		r.log.Info("read replica in use", "lag", lag.Round(time.Millisecond).String())
	}
}

// markDown sends reads to the primary until a poll reaches the replica.
func (r *Router) markDown(reason string) {
	prev := r.poll.Load()
	r.poll.Store(&pollState{reason: reason, caughtUp: prev.caughtUp})
	r.m.up.Set(0)
	if r.health.Swap(healthDown) != healthDown {
		r.log.Warn("read replica unavailable: reads go to the primary", "reason", reason)
	}
}

// listenLoop hears the writes announced by any node until ctx ends. Each
// payload is a writer to pin, in order; when the listener loses its
// connection, or this subscriber falls more than its queue behind, the
// announcements in between are lost: listening is nil meanwhile (reads go
// to the primary), and on (re)connecting it restarts, so that the writes
// made before count as everyone's until the replica has replayed them.
func (r *Router) listenLoop(ctx context.Context) {
	l, stop := pg.OwnListener(r.cfg.Listener, r.primary, r.log)
	defer stop()
	sub := l.Subscribe(Channel, pg.Handler{
		Payloads: true,
		Notify:   func(sub string) { r.pin(sub, time.Now()) },
		Connected: func() {
			now := time.Now()
			r.listening.Store(&now)
		},
		Lost: func() {
			r.listening.Store(nil)
			r.log.Info("read replica: write announcements lost; reads go to the primary until they are heard again")
		},
	})
	<-ctx.Done()
	sub.Close()
	r.listening.Store(nil)
}

// retryOnPrimary lists the replica-side errors a read recovers from on the
// primary: a query cancelled by a conflict with recovery, and objects the
// replica has not replayed yet (the schema cache is read from the primary).
func retryOnPrimary(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "40001", // serialization_failure: "conflict with recovery"
		"40P01",                            // deadlock_detected, also a recovery conflict
		"42P01", "42703", "42883", "42704": // undefined table, column, function, object
		return true
	}
	return false
}

// WAL page header sizes (XLogPageHeaderData, XLogLongPageHeaderData).
const (
	shortPageHeader = 24
	longPageHeader  = 40
)

// recordEnd turns an insert position into the end of the last record: when
// that record filled its page, the insert position lies past the next
// page's header, where a standby's replay position never points, and an
// idle replica would look behind forever.
func recordEnd(lsn, block, segment uint64) uint64 {
	switch {
	case segment > 0 && lsn%segment == longPageHeader:
		return lsn - longPageHeader
	case block > 0 && lsn%block == shortPageHeader:
		return lsn - shortPageHeader
	}
	return lsn
}

// parseLSN reads PostgreSQL's "16/B374D848" notation.
func parseLSN(s string) (uint64, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, fmt.Errorf("bad LSN %q", s)
	}
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad LSN %q", s)
	}
	return h<<32 | l, nil
}
