package changes

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
)

// run keeps trying to become the slot's reader until the engine closes.
func (e *Engine) run(ctx context.Context) {
	defer close(e.done)
	for ctx.Err() == nil {
		led, err := e.lead(ctx)
		if err != nil && ctx.Err() == nil {
			e.log.Warn("realtime: replication", "err", err)
		}
		if led && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
}

// lockKey names the advisory lock that makes one node the reader.
const lockKey = "basalt_realtime_replication"

// lead takes the leadership lock if it is free and streams the slot while
// holding it. The lock is a session lock on a connection of its own:
// closing it (or the node dying) hands leadership to the next node that
// asks, which resumes the slot where this one last confirmed it. (The slot
// itself admits one reader at a time, so a node that lost the lock but
// still streams keeps the next one out until it stops.)
func (e *Engine) lead(ctx context.Context) (bool, error) {
	pc, err := e.admin.Acquire(ctx)
	if err != nil {
		return false, err
	}
	lockConn := pc.Hijack()
	defer lockConn.Close(context.Background())
	var got bool
	if err := lockConn.QueryRow(ctx, "SELECT pg_try_advisory_lock(hashtext($1))", lockKey).Scan(&got); err != nil {
		return false, err
	}
	e.elsewhere.Store(!got)
	if !got {
		return false, nil
	}
	sctx, cancel := context.WithCancel(ctx)
	// The pinger is waited for before the deferred Close of lockConn: a
	// pgx connection is not safe for concurrent use.
	pinged := make(chan struct{})
	defer func() {
		cancel()
		<-pinged
	}()
	// Losing the lock connection means losing leadership: stop streaming.
	go func() {
		defer close(pinged)
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-sctx.Done():
				return
			case <-t.C:
				if err := lockConn.Ping(sctx); err != nil && sctx.Err() == nil {
					cancel()
					return
				}
			}
		}
	}()
	return true, e.stream(sctx)
}

// stream opens the slot (creating it if missing) at its confirmed position
// and applies its changes until ctx ends.
func (e *Engine) stream(ctx context.Context) error {
	cfg := e.admin.Config().ConnConfig.Config.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["replication"] = "database"
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("replication connection: %w", err)
	}
	defer conn.Close(context.Background())
	slot := e.slotName()
	start, err := e.ensureSlot(ctx, conn, slot)
	if err != nil {
		return err
	}
	err = pglogrepl.StartReplication(ctx, conn, slot, start, pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names '" + Publication + "'"}})
	if err != nil {
		return fmt.Errorf("start replication: %w", err)
	}
	if e.cfg.Fence != nil {
		// What the previous reader confirmed it had published must be
		// applied here before this reader's first change, or it would
		// count as already seen (see deliver). Nothing it publishes from
		// now on can have been confirmed: this connection holds the slot.
		fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if err := e.cfg.Fence(fctx); err != nil && ctx.Err() == nil {
			e.log.Warn("realtime: waiting for changes published before taking over", "err", err)
		}
		cancel()
	}
	e.log.Info("realtime: reading changes", "slot", slot, "from", start.String())
	e.confirmed.Store(uint64(start))
	e.streaming.Store(true)
	defer e.streaming.Store(false)
	if e.cfg.SlotLag != nil {
		lctx, stop := context.WithCancel(ctx)
		defer stop()
		go e.watchLag(lctx, slot)
	}
	r := &reader{e: e, conn: conn, confirmed: start}
	err = r.run(ctx)
	// Everything confirmed was handed on, whatever ended the stream. If
	// this last report is lost, the next reader reads those changes again
	// and deliver drops the positions already processed.
	_ = r.report(context.Background(), false)
	return err
}

// watchLag reports the slot's unconfirmed WAL every 10 s until ctx ends,
// then that the slot is no longer read here.
func (e *Engine) watchLag(ctx context.Context, slot string) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	defer e.cfg.SlotLag(slot, 0, false)
	for {
		var lag float64
		err := e.admin.QueryRow(ctx, `SELECT coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn), 0)::float8
			FROM pg_replication_slots WHERE slot_name = $1`, slot).Scan(&lag)
		if err == nil && ctx.Err() == nil {
			e.cfg.SlotLag(slot, lag, true)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// txInfo is the transaction whose changes are being decoded.
type txInfo struct {
	open   bool
	lsn    pglogrepl.LSN // its commit record
	seq    int           // changes decoded so far
	xid    uint32
	commit time.Time
}

// decode turns a pgoutput message into a Change (nil for the others).
func (e *Engine) decode(msg pglogrepl.Message, tx *txInfo) *Change {
	var ch *Change
	switch m := msg.(type) {
	case *pglogrepl.BeginMessage:
		*tx = txInfo{open: true, lsn: m.FinalLSN, xid: m.Xid, commit: m.CommitTime}
	case *pglogrepl.CommitMessage:
		tx.open = false
	case *pglogrepl.RelationMessage:
		e.rels.forget(m.RelationID)
	case *pglogrepl.InsertMessage:
		ch = &Change{Rel: m.RelationID, Type: "INSERT"}
		ch.New, ch.Unchanged = tupleValues(m.Tuple)
	case *pglogrepl.UpdateMessage:
		ch = &Change{Rel: m.RelationID, Type: "UPDATE", OldKind: m.OldTupleType}
		ch.New, ch.Unchanged = tupleValues(m.NewTuple)
		ch.Old, _ = tupleValues(m.OldTuple)
		ch.fillUnchanged()
	case *pglogrepl.DeleteMessage:
		ch = &Change{Rel: m.RelationID, Type: "DELETE", OldKind: m.OldTupleType}
		ch.Old, _ = tupleValues(m.OldTuple)
	}
	if ch != nil {
		tx.seq++
		ch.LSN, ch.Seq, ch.Xid, ch.Commit = uint64(tx.lsn), tx.seq, tx.xid, tx.commit
	}
	return ch
}

// fillUnchanged gives an UPDATE's unchanged TOASTed columns their value
// from the old row when the table's replica identity is FULL (an unchanged
// value is the old one), as the reference's record does; otherwise the old
// row holds the key only and they stay out of the record.
func (ch *Change) fillUnchanged() {
	if ch.OldKind != 'O' || len(ch.Unchanged) == 0 {
		return
	}
	left := ch.Unchanged[:0]
	for _, i := range ch.Unchanged {
		if i < len(ch.Old) && i < len(ch.New) && ch.Old[i] != nil {
			ch.New[i] = ch.Old[i]
			continue
		}
		left = append(left, i)
	}
	ch.Unchanged = left
}

// tupleValues reads text-format values; nil is NULL. Unchanged TOAST
// values are listed separately (their value is not in the stream).
func tupleValues(t *pglogrepl.TupleData) ([]*string, []int) {
	if t == nil {
		return nil, nil
	}
	vals := make([]*string, len(t.Columns))
	var unchanged []int
	for i, c := range t.Columns {
		switch c.DataType {
		case pglogrepl.TupleDataTypeText, pglogrepl.TupleDataTypeBinary:
			s := string(c.Data)
			vals[i] = &s
		case pglogrepl.TupleDataTypeToast:
			unchanged = append(unchanged, i)
		}
	}
	return vals, unchanged
}

// apply hands a change the slot sent to the other nodes and processes it
// here. An error means it was not handed on (its transaction must not be
// confirmed), including when ctx ended while it was processed.
func (e *Engine) apply(ctx context.Context, ch *Change) error {
	if e.cfg.Publish != nil {
		b, err := json.Marshal(ch)
		if err != nil {
			return err
		}
		if err := e.cfg.Publish(ctx, b); err != nil {
			return fmt.Errorf("publish change: %w", err)
		}
	}
	e.deliver(ctx, ch)
	return ctx.Err()
}

// Ingest processes a change another node read from the slot.
func (e *Engine) Ingest(ctx context.Context, change []byte) {
	var ch Change
	if err := json.Unmarshal(change, &ch); err != nil {
		return
	}
	e.deliver(ctx, &ch)
}
