package changes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// statusInterval is how often the reader tells the server how far it has
// got. Each report asks for a reply, whose position confirms stretches of
// WAL with nothing for the publication, so an idle slot keeps up too.
const statusInterval = time.Second

// reader is one session streaming the slot.
type reader struct {
	e    *Engine
	conn *pgconn.PgConn
	tx   txInfo
	// confirmed is where a reader may resume without missing a change:
	// the end of the last transaction all of whose changes were handed on,
	// or a later position the server vouched had nothing in between.
	confirmed pglogrepl.LSN
	next      time.Time // next status report
	asked     time.Time // last status report sent for a drain
}

// run applies the stream until ctx ends or the connection fails.
func (r *reader) run(ctx context.Context) error {
	for {
		if err := r.report(ctx, true); err != nil {
			return fmt.Errorf("standby status: %w", err)
		}
		raw, err := r.receive(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if pgconn.Timeout(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				continue // the wait ended, the connection is fine
			}
			return fmt.Errorf("receive: %w", err)
		}
		if err := r.handle(ctx, raw); err != nil {
			return err
		}
	}
}

// receive waits for the next message until the next status report is due;
// a drain request (see Engine.Drain) ends the wait at once, and from then
// on the reader looks every 20 ms.
func (r *reader) receive(ctx context.Context) (pgproto3.BackendMessage, error) {
	wait := time.Until(r.next)
	if r.e.drainNow.Err() != nil {
		wait = min(wait, 20*time.Millisecond)
	}
	rctx, cancel := context.WithTimeout(ctx, max(wait, time.Millisecond))
	defer cancel()
	if r.e.drainNow.Err() == nil {
		stop := context.AfterFunc(r.e.drainNow, cancel)
		defer stop()
	}
	return r.conn.ReceiveMessage(rctx)
}

// report sends a status update when one is due (or at once with due
// false): the confirmed position as written, flushed and applied. While a
// drain waits for the reader, it asks every 20 ms.
func (r *reader) report(ctx context.Context, due bool) error {
	now := time.Now()
	if due && now.Before(r.next) {
		if r.e.drainTo.Load() <= uint64(r.confirmed) || now.Sub(r.asked) < 20*time.Millisecond {
			return nil
		}
		r.asked = now
	}
	r.next = now.Add(statusInterval)
	return pglogrepl.SendStandbyStatusUpdate(ctx, r.conn, pglogrepl.StandbyStatusUpdate{
		WALWritePosition: r.confirmed, ReplyRequested: due})
}

// handle applies one message of the stream.
func (r *reader) handle(ctx context.Context, raw pgproto3.BackendMessage) error {
	if er, ok := raw.(*pgproto3.ErrorResponse); ok {
		return fmt.Errorf("replication error: %s", er.Message)
	}
	cd, ok := raw.(*pgproto3.CopyData)
	if !ok || len(cd.Data) == 0 {
		return nil
	}
	switch cd.Data[0] {
	case pglogrepl.PrimaryKeepaliveMessageByteID:
		ka, err := pglogrepl.ParsePrimaryKeepaliveMessage(cd.Data[1:])
		if err != nil {
			return err
		}
		// Everything the server sent before this message was applied (the
		// loop applies as it reads); outside a transaction nothing up to
		// its position is pending.
		if !r.tx.open {
			r.confirm(ka.ServerWALEnd)
		}
		if ka.ReplyRequested {
			r.next = time.Time{}
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
		if ch := r.e.decode(msg, &r.tx); ch != nil {
			if err := r.e.apply(ctx, ch); err != nil {
				return err
			}
		}
		if c, ok := msg.(*pglogrepl.CommitMessage); ok {
			r.confirm(c.TransactionEndLSN)
		}
	}
	return nil
}

// confirm moves the confirmed position forward.
func (r *reader) confirm(lsn pglogrepl.LSN) {
	if lsn > r.confirmed {
		r.confirmed = lsn
		r.e.confirmed.Store(uint64(lsn))
	}
}
