package changes

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
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
// asks, which creates its own temporary slot.
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
	e.leader.Store(true)
	defer e.leader.Store(false)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Losing the lock connection means losing leadership: stop streaming.
	go func() {
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

var slotChars = regexp.MustCompile(`[^a-z0-9_]`)

// slotName is the configured name plus the database's, as slots are
// cluster-wide.
func (e *Engine) slotName() string {
	db := strings.ToLower(e.admin.Config().ConnConfig.Database)
	name := slotChars.ReplaceAllString(strings.ToLower(e.cfg.SlotName)+"_"+db, "_")
	if len(name) > 63 {
		name = name[:63]
	}
	return name
}

// stream creates the temporary slot and applies its changes until ctx ends.
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
	res, err := pglogrepl.CreateReplicationSlot(ctx, conn, slot, "pgoutput",
		pglogrepl.CreateReplicationSlotOptions{Temporary: true, Mode: pglogrepl.LogicalReplication})
	if err != nil {
		return fmt.Errorf("create slot %s: %w", slot, err)
	}
	start, err := pglogrepl.ParseLSN(res.ConsistentPoint)
	if err != nil {
		return err
	}
	err = pglogrepl.StartReplication(ctx, conn, slot, start, pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names '" + Publication + "'"}})
	if err != nil {
		return fmt.Errorf("start replication: %w", err)
	}
	e.log.Info("realtime: reading changes", "slot", slot)
	e.streaming.Store(true)
	defer e.streaming.Store(false)
	if e.cfg.SlotLag != nil {
		lctx, stop := context.WithCancel(ctx)
		defer stop()
		go e.watchLag(lctx, slot)
	}
	return e.receive(ctx, conn, start)
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

// receive reads the stream, acknowledging what was applied.
func (e *Engine) receive(ctx context.Context, conn *pgconn.PgConn, pos pglogrepl.LSN) error {
	standby := time.Now().Add(10 * time.Second)
	var tx txInfo
	for {
		if time.Now().After(standby) {
			if err := pglogrepl.SendStandbyStatusUpdate(ctx, conn, pglogrepl.StandbyStatusUpdate{WALWritePosition: pos}); err != nil {
				return fmt.Errorf("standby status: %w", err)
			}
			standby = time.Now().Add(10 * time.Second)
		}
		rctx, cancel := context.WithDeadline(ctx, standby)
		raw, err := conn.ReceiveMessage(rctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if pgconn.Timeout(err) {
				continue
			}
			return fmt.Errorf("receive: %w", err)
		}
		if er, ok := raw.(*pgproto3.ErrorResponse); ok {
			return fmt.Errorf("replication error: %s", er.Message)
		}
		cd, ok := raw.(*pgproto3.CopyData)
		if !ok || len(cd.Data) == 0 {
			continue
		}
		switch cd.Data[0] {
		case pglogrepl.PrimaryKeepaliveMessageByteID:
			ka, err := pglogrepl.ParsePrimaryKeepaliveMessage(cd.Data[1:])
			if err != nil {
				return err
			}
			if ka.ServerWALEnd > pos {
				pos = ka.ServerWALEnd
			}
			if ka.ReplyRequested {
				standby = time.Time{}
			}
		case pglogrepl.XLogDataByteID:
			xld, err := pglogrepl.ParseXLogData(cd.Data[1:])
			if err != nil {
				return err
			}
			msg, err := pglogrepl.Parse(xld.WALData)
			if err != nil {
				return fmt.Errorf("decode: %w", err)
			}
			if ch := e.decode(msg, &tx); ch != nil {
				e.apply(ctx, ch)
			}
			if end := xld.WALStart + pglogrepl.LSN(len(xld.WALData)); end > pos {
				pos = end
			}
		}
	}
}

// txInfo is the transaction whose changes are being decoded.
type txInfo struct {
	xid    uint32
	commit time.Time
}

// decode turns a pgoutput message into a Change (nil for the others).
func (e *Engine) decode(msg pglogrepl.Message, tx *txInfo) *Change {
	commit := &tx.commit
	switch m := msg.(type) {
	case *pglogrepl.BeginMessage:
		tx.xid, tx.commit = m.Xid, m.CommitTime
	case *pglogrepl.RelationMessage:
		e.rels.forget(m.RelationID)
	case *pglogrepl.InsertMessage:
		ch := &Change{Rel: m.RelationID, Type: "INSERT", Commit: *commit, Xid: tx.xid}
		ch.New, ch.Unchanged = tupleValues(m.Tuple)
		return ch
	case *pglogrepl.UpdateMessage:
		ch := &Change{Rel: m.RelationID, Type: "UPDATE", Commit: *commit, OldKind: m.OldTupleType, Xid: tx.xid}
		ch.New, ch.Unchanged = tupleValues(m.NewTuple)
		ch.Old, _ = tupleValues(m.OldTuple)
		return ch
	case *pglogrepl.DeleteMessage:
		ch := &Change{Rel: m.RelationID, Type: "DELETE", Commit: *commit, OldKind: m.OldTupleType, Xid: tx.xid}
		ch.Old, _ = tupleValues(m.OldTuple)
		return ch
	}
	return nil
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

// apply processes a change here and publishes it to the other nodes.
func (e *Engine) apply(ctx context.Context, ch *Change) {
	if e.cfg.Publish != nil {
		if b, err := json.Marshal(ch); err == nil {
			e.cfg.Publish(b)
		}
	}
	e.process(ctx, ch)
}

// Ingest processes a change another node read from the slot.
func (e *Engine) Ingest(ctx context.Context, change []byte) {
	var ch Change
	if err := json.Unmarshal(change, &ch); err != nil {
		return
	}
	e.process(ctx, &ch)
}
