package changes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/lazy"
)

var slotChars = lazy.NewRegexp(`[^a-z0-9_]`)

// SlotName is the slot a database's realtime reads: the configured name
// plus the database's, as slots are cluster-wide.
func SlotName(prefix string, db *pgxpool.Pool) string {
	name := strings.ToLower(prefix) + "_" + strings.ToLower(db.Config().ConnConfig.Database)
	name = slotChars.ReplaceAllString(name, "_")
	if len(name) > 63 {
		name = name[:63]
	}
	return name
}

func (e *Engine) slotName() string { return SlotName(e.cfg.SlotName, e.admin) }

// ensureSlot returns the position to stream the slot from: where it was
// last confirmed, or where it starts when it has to be created first (it
// is missing, or PostgreSQL invalidated it for holding more WAL than
// max_slot_wal_keep_size allows).
func (e *Engine) ensureSlot(ctx context.Context, conn *pgconn.PgConn, slot string) (pglogrepl.LSN, error) {
	var plugin, status, confirmed string
	var active bool
	var err error
	// The previous reader's connection may still be closing: give it a
	// moment rather than failing and retrying 2 s later.
	for range 40 {
		err = e.admin.QueryRow(ctx, `SELECT coalesce(plugin, ''), coalesce(wal_status, ''), coalesce(confirmed_flush_lsn::text, ''), active
			FROM pg_replication_slots WHERE slot_name = $1`, slot).Scan(&plugin, &status, &confirmed, &active)
		if err != nil || !active || !sleep(ctx, 50*time.Millisecond) {
			break
		}
	}
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return 0, fmt.Errorf("read slot %s: %w", slot, err)
	case plugin != "pgoutput":
		return 0, fmt.Errorf("slot %s exists with plugin %q, not pgoutput (drop it or set REALTIME_SLOT_NAME)", slot, plugin)
	case status == "lost":
		e.log.Warn("realtime: the replication slot was invalidated for holding too much WAL (max_slot_wal_keep_size); "+
			"recreating it, changes committed while no node read it are not delivered", "slot", slot)
		if err := pglogrepl.DropReplicationSlot(ctx, conn, slot, pglogrepl.DropReplicationSlotOptions{}); err != nil {
			return 0, fmt.Errorf("drop invalidated slot %s: %w", slot, err)
		}
	default:
		return pglogrepl.ParseLSN(confirmed)
	}
	res, err := pglogrepl.CreateReplicationSlot(ctx, conn, slot, "pgoutput",
		pglogrepl.CreateReplicationSlotOptions{Mode: pglogrepl.LogicalReplication, SnapshotAction: "NOEXPORT_SNAPSHOT"})
	if err != nil {
		return 0, fmt.Errorf("create slot %s: %w", slot, err)
	}
	e.log.Info("realtime: created the replication slot", "slot", slot)
	return pglogrepl.ParseLSN(res.ConsistentPoint)
}

// DropIdleSlot drops the database's slot if no node reads it: with
// postgres_changes off, nothing would ever confirm it and PostgreSQL would
// keep WAL for it forever.
func DropIdleSlot(ctx context.Context, admin *pgxpool.Pool, prefix string, log *slog.Logger) {
	slot := SlotName(prefix, admin)
	rows, err := admin.Query(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
		WHERE slot_name = $1 AND NOT active`, slot)
	if err == nil {
		var n int
		for rows.Next() {
			n++
		}
		rows.Close()
		err = rows.Err()
		if err == nil && n > 0 {
			log.Info("realtime: dropped the replication slot, postgres_changes are off", "slot", slot)
		}
	}
	if err != nil {
		log.Warn("realtime: drop the unused replication slot", "slot", slot, "err", err)
	}
}

// Drain returns once every change committed before the call has been
// handed to this node's subscribers, or when ctx ends. On the node that
// reads the slot that means reading it up to the WAL written now; on
// another, waiting until the reader has confirmed that far, then until
// this node received all it published (Config.Fence).
func (e *Engine) Drain(ctx context.Context) {
	target, err := e.flushedNow(ctx)
	if err != nil {
		e.log.Warn("realtime: drain changes", "err", err)
		return
	}
	s := target.String()
	if e.streaming.Load() {
		e.drainTo.Store(uint64(target))
		e.drain()
		for e.confirmed.Load() < uint64(target) && e.streaming.Load() && sleep(ctx, 5*time.Millisecond) {
		}
		return
	}
	if !e.elsewhere.Load() || e.cfg.Fence == nil {
		return
	}
	slot := e.slotName()
	for {
		var done bool
		err := e.admin.QueryRow(ctx, `SELECT coalesce(bool_or(confirmed_flush_lsn >= $2::pg_lsn), true)
			FROM pg_replication_slots WHERE slot_name = $1`, slot, s).Scan(&done)
		if err != nil || done {
			break
		}
		if !sleep(ctx, 50*time.Millisecond) {
			return
		}
	}
	if err := e.cfg.Fence(ctx); err != nil {
		e.log.Warn("realtime: drain changes from the reading node", "err", err)
	}
}

// flushedNow returns the WAL insert position after making sure the WAL up
// to it is flushed: the slot sends only flushed WAL, and a transaction
// committed with synchronous_commit off may not be yet. A transaction of
// its own, committed with a local flush, flushes everything before it.
func (e *Engine) flushedNow(ctx context.Context) (pglogrepl.LSN, error) {
	var s string
	err := pgx.BeginFunc(ctx, e.admin, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = local`); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT pg_current_wal_insert_lsn()::text FROM pg_current_xact_id()`).Scan(&s)
	})
	if err != nil {
		return 0, err
	}
	return pglogrepl.ParseLSN(s)
}

// sleep waits d, reporting false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
