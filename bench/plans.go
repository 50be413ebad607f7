package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/basaltdev/basalt/internal/pg"
)

// Querier is a pool, a connection or a transaction.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Rows runs a query, reads every row and returns how many there were.
func Rows(ctx context.Context, q Querier, sql string, args ...any) (int64, error) {
	r, err := q.Query(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var n int64
	for r.Next() {
		n++
	}
	return n, r.Err()
}

// BigTables returns the tables (by name) with more than minRows rows by the
// planner's statistics, and their row counts.
func BigTables(ctx context.Context, q Querier, minRows float64) (map[string]float64, error) {
	r, err := q.Query(ctx, `SELECT c.relname, c.reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND c.reltuples > $1`, minRows)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for r.Next() {
		var name string
		var n float64
		if err := r.Scan(&name, &n); err != nil {
			r.Close()
			return nil, err
		}
		out[name] = n
	}
	return out, r.Err()
}

// SeqScans runs sql once as the caller on a connection of its own to url (a
// superuser's: it loads auto_explain) and returns how the statements it ran
// (functions' inner statements included) read the big tables without an
// index: a sequential scan, as "table (N rows)", or an index read that
// threw more than maxFiltered rows away, as "table: index, N rows filtered
// out". Empty means every big table was read through an index, for only
// the rows wanted.
func SeqScans(ctx context.Context, url string, c pg.Caller, big map[string]float64, sql string, args ...any) ([]string, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	var plans []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if _, plan, ok := strings.Cut(n.Message, "plan:\n"); ok {
			plans = append(plans, plan)
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	for _, s := range []string{`LOAD 'auto_explain'`, `SET auto_explain.log_min_duration = 0`,
		`SET auto_explain.log_nested_statements = on`, `SET auto_explain.log_format = json`,
		`SET auto_explain.log_analyze = on`, `SET auto_explain.log_timing = off`,
		`SET auto_explain.log_level = notice`, `SET client_min_messages = notice`} {
		if _, err := conn.Exec(ctx, s); err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
	}
	if err := pg.AsCaller(ctx, conn, c, func(tx pgx.Tx) error {
		_, err := Rows(ctx, tx, sql, args...)
		return err
	}); err != nil {
		return nil, err
	}
	if len(plans) == 0 {
		return nil, fmt.Errorf("auto_explain reported no plan")
	}
	seen := map[string]bool{}
	for _, p := range plans {
		var doc struct{ Plan planNode }
		if err := json.Unmarshal([]byte(p), &doc); err != nil {
			return nil, fmt.Errorf("plan %q: %w", p, err)
		}
		doc.Plan.walk(func(n *planNode) {
			switch {
			case big[n.Relation] == 0:
			case n.NodeType == "Seq Scan":
				seen[fmt.Sprintf("%s (%.0f rows)", n.Relation, big[n.Relation])] = true
			case (n.Filtered+n.Rechecked)*n.Loops > maxFiltered:
				seen[fmt.Sprintf("%s: %s, %.0f rows filtered out", n.Relation, n.NodeType, (n.Filtered+n.Rechecked)*n.Loops)] = true
			}
		})
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out, nil
}

// maxFiltered is how many rows a read of a big table may throw away.
const maxFiltered = 1000

// planNode is the part of an EXPLAIN (ANALYZE, FORMAT JSON) node the check
// reads. Row counts are per loop.
type planNode struct {
	NodeType  string     `json:"Node Type"`
	Relation  string     `json:"Relation Name"`
	Loops     float64    `json:"Actual Loops"`
	Filtered  float64    `json:"Rows Removed by Filter"`
	Rechecked float64    `json:"Rows Removed by Index Recheck"`
	Plans     []planNode `json:"Plans"`
}

func (n *planNode) walk(fn func(*planNode)) {
	fn(n)
	for i := range n.Plans {
		n.Plans[i].walk(fn)
	}
}
