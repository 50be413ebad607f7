package pg

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Follow keeps a node's copy of something stored in Postgres current until
// ctx ends: it subscribes to channel on l (nil: a listener of its own on
// db) and calls refresh once LISTEN is in effect (for changes made before,
// and again after every reconnect), on every notification, and every poll,
// in case a notification is missed. A refresh that fails is logged (as
// what); the listener logs its own outages.
func Follow(ctx context.Context, l *Listener, db *pgxpool.Pool, channel string, poll time.Duration, refresh func(context.Context) error, log *slog.Logger, what string) {
	l, stop := OwnListener(l, db, log)
	defer stop()
	due := make(chan struct{}, 1)
	sub := l.Subscribe(channel, Handler{
		Notify:    func(string) { Poke(due) },
		Connected: func() { Poke(due) },
	})
	defer sub.Close()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-due:
		case <-t.C:
		}
		if err := refresh(ctx); err != nil && ctx.Err() == nil {
			log.Warn(what+": refresh failed", "err", err)
		}
	}
}
