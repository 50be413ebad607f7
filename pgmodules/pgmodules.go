// Package pgmodules holds what Basalt's server side needs of the three
// Postgres modules Supabase projects use: Cron (pg_cron, created by
// sql/platform/0020 where the server loads it), Queues (pgmq's interface,
// implemented in SQL by sql/platform/0021) and HTTP from SQL with Database
// Webhooks (pg_net's interface, sql/platform/0022, whose requests package
// netsend sends). Queues need no Go at all; cron needs its status checked
// and, on every start, pg_cron created when the server was set up for it
// after the migrations ran.
package pgmodules

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/basaltdev/basalt/internal/pg"
)

// CronStatus is pg_cron's state in one database.
type CronStatus struct {
	Enabled bool   `json:"enabled"`
	Version string `json:"version,omitempty"`
	// Seconds: schedules such as '5 seconds' are accepted (pg_cron 1.5+).
	Seconds bool `json:"seconds"`
	// Problem says why cron is off and how to turn it on.
	Problem string `json:"problem,omitempty"`
}

// EnableCron creates pg_cron when the server preloads it for this
// database and the role may create it, and returns the resulting status.
func EnableCron(ctx context.Context, db pg.DB) (CronStatus, error) {
	return cronStatus(ctx, db, `SELECT basalt.enable_cron()`)
}

// Cron reads pg_cron's status without changing anything.
func Cron(ctx context.Context, db pg.DB) (CronStatus, error) {
	return cronStatus(ctx, db, `SELECT basalt.cron_status()`)
}

func cronStatus(ctx context.Context, db pg.DB, query string) (CronStatus, error) {
	var raw []byte
	if err := db.QueryRow(ctx, query).Scan(&raw); err != nil {
		return CronStatus{}, fmt.Errorf("cron status: %w", err)
	}
	var s CronStatus
	if err := json.Unmarshal(raw, &s); err != nil {
		return CronStatus{}, fmt.Errorf("cron status %s: %w", raw, err)
	}
	return s, nil
}
