package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/basaltdev/basalt/bench"
)

// dbProfile is where PostgreSQL's time went over a span: CPU by kind of
// process (the walsender decoding the slot, the admin role's backends, the
// authenticator's, background workers) and the statements it ran
// (pg_stat_statements), for -pgstat.
type dbProfile struct {
	st  *basaltStack
	cpu map[string]time.Duration
}

// startDBProfile resets pg_stat_statements and notes the CPU so far.
func (st *basaltStack) startDBProfile(ctx context.Context) (*dbProfile, error) {
	if _, err := st.admin.Exec(ctx, "SELECT pg_stat_statements_reset()"); err != nil {
		return nil, err
	}
	return &dbProfile{st: st, cpu: st.cpuByKind()}, nil
}

// cpuByKind is PostgreSQL's CPU time so far by process kind: the first
// word of a process's title after "postgres:" (the role of a backend, or
// walsender, checkpointer...).
func (st *basaltStack) cpuByKind() map[string]time.Duration {
	out := map[string]time.Duration{}
	pid, ok := st.cluster.PID()
	if !ok {
		return out
	}
	for _, p := range bench.ProcessTree(pid) {
		kind := "postmaster"
		if rest, ok := strings.CutPrefix(p.Cmdline, "postgres: "); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				kind = f[0]
			}
		}
		out[kind] += p.CPU
	}
	return out
}

// print writes the span's figures per operation.
func (p *dbProfile) print(ctx context.Context, w io.Writer, title string, ops int64) error {
	if ops <= 0 {
		return nil
	}
	fmt.Fprintf(w, "\nPostgreSQL per %s, %s\n", title, "by process kind (CPU time):")
	now := p.st.cpuByKind()
	var kinds []string
	for k := range now {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return now[kinds[i]]-p.cpu[kinds[i]] > now[kinds[j]]-p.cpu[kinds[j]] })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, k := range kinds {
		if d := now[k] - p.cpu[k]; d > 0 {
			fmt.Fprintf(tw, "  %s\t%s\n", k, short(d/time.Duration(ops)))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	rows, err := p.st.admin.Query(ctx, `SELECT calls, total_exec_time + total_plan_time, rolname, left(regexp_replace(query, '\s+', ' ', 'g'), 110)
		FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
		ORDER BY total_exec_time + total_plan_time DESC LIMIT 15`)
	if err != nil {
		return err
	}
	defer rows.Close()
	fmt.Fprintln(w, "statements (pg_stat_statements: calls and plan + execution time per operation):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for rows.Next() {
		var calls int64
		var ms float64
		var role, q string
		if err := rows.Scan(&calls, &ms, &role, &q); err != nil {
			return err
		}
		fmt.Fprintf(tw, "  %.2f\t%s\t%s\t%s\n", float64(calls)/float64(ops),
			short(time.Duration(ms*1e6)/time.Duration(ops)), role, q)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return tw.Flush()
}
