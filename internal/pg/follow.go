package pg

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Follow keeps a node's copy of something stored in Postgres current until
// ctx ends: it LISTENs on channel on a connection taken out of the pool
// for good, calls refresh once LISTEN is in effect (for changes made
// before) and on every notification, and also every poll, in case a
// notification is missed. When the connection fails it says so in the log
// (as what) and polls until it can LISTEN again.
func Follow(ctx context.Context, db *pgxpool.Pool, channel string, poll time.Duration, refresh func(context.Context) error, log *slog.Logger, what string) {
	for ctx.Err() == nil {
		err := listen(ctx, db, channel, poll, refresh)
		if ctx.Err() != nil {
			return
		}
		log.Warn(what+": following changes failed; polling until it works again", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(poll):
		}
		if err := refresh(ctx); err != nil && ctx.Err() == nil {
			log.Warn(what+": refresh failed", "err", err)
		}
	}
}

func listen(ctx context.Context, db *pgxpool.Pool, channel string, poll time.Duration, refresh func(context.Context) error) error {
	pooled, err := db.Acquire(ctx)
	if err != nil {
		return err
	}
	// LISTEN state belongs to this connection: it never goes back to the pool.
	conn := pooled.Hijack()
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		return err
	}
	if err := refresh(ctx); err != nil {
		return err
	}
	for {
		wctx, cancel := context.WithTimeout(ctx, poll)
		_, err := conn.WaitForNotification(wctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && wctx.Err() == nil {
			return err
		}
		if err := refresh(ctx); err != nil {
			return err
		}
	}
}
