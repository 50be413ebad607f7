package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/basaltdev/basalt/bench"
)

// report is the whole run.
type report struct {
	opts    bench.Options
	rounds  int
	peers   []string
	idle    []idleRow
	fanout  []caseRows
	changes []caseRows
	reads   []caseRows
}

// figures is one side's runs reduced to what the tables show.
type figures struct {
	perSec     []float64
	cpu, db    []time.Duration // per operation
	p50s, p99s []time.Duration
}

func (f *figures) add(perSec float64, cpu, db, p50, p99 time.Duration) {
	f.perSec = append(f.perSec, perSec)
	f.cpu = append(f.cpu, cpu)
	f.db = append(f.db, db)
	f.p50s = append(f.p50s, p50)
	f.p99s = append(f.p99s, p99)
}

// total is server plus database CPU per operation, by run.
func (f *figures) total() []time.Duration {
	out := make([]time.Duration, len(f.cpu))
	for i := range f.cpu {
		out[i] = f.cpu[i] + f.db[i]
	}
	return out
}

func (r *report) print(w io.Writer) error {
	if r.opts.JSON {
		return json.NewEncoder(w).Encode(map[string]any{
			"rounds": r.rounds, "duration_ns": r.opts.Duration, "peers": r.peers,
			"idle": r.idle, "fanout": r.fanout, "changes": r.changes, "reads": r.reads})
	}
	fmt.Fprintf(w, "bench/rtpeers: %d round(s) of %s per server and case, servers alternating; %d CPUs, %s\n",
		r.rounds, r.opts.Duration, runtime.NumCPU(), runtime.Version())
	if len(r.peers) == 0 {
		fmt.Fprintln(w, "no peer built: Basalt alone (see the lines above for why)")
	} else {
		fmt.Fprintln(w, "peers:", strings.Join(r.peers, ", "))
	}
	fmt.Fprintln(w, "figures: median over rounds [min–max]; CPU is each server process's own (and PostgreSQL's for Basalt)")
	if len(r.idle) > 0 {
		fmt.Fprintln(w, "\nidle memory (resident set a few seconds after start = anonymous + the binary's pages; MB)")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  server\tresident\tanonymous\tbinary")
		for _, row := range r.idle {
			var rss, anon, file []float64
			for _, m := range row.Runs {
				rss, anon, file = append(rss, float64(m.RSS)/1e6), append(anon, float64(m.Anon)/1e6), append(file, float64(m.File)/1e6)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", row.Server, spread(rss, "%.1f"), spread(anon, "%.1f"), spread(file, "%.1f"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, c := range r.fanout {
		if err := r.table(w, "broadcast fan-out, "+c.Case, "deliveries/s", "per delivery", c); err != nil {
			return err
		}
	}
	for _, c := range r.changes {
		rate, per := "changes/s", "per change"
		if strings.Contains(c.Case, "subscribers") {
			rate, per = "deliveries/s", "per delivery"
		}
		if err := r.table(w, "postgres_changes, "+c.Case, rate, per, c); err != nil {
			return err
		}
	}
	for _, c := range r.reads {
		if err := r.table(w, "REST read, "+c.Case, "reads/s", "per read", c); err != nil {
			return err
		}
	}
	return nil
}

// table prints one case: a line per server, then Basalt over each peer.
func (r *report) table(w io.Writer, title, rate, per string, c caseRows) error {
	var sides []figures
	var names []string
	for _, s := range c.Sides {
		var f figures
		for _, run := range s.Runs {
			f.add(run.PerSec, run.ServerCPU, run.DBCPU, run.P50, run.P99)
		}
		sides, names = append(sides, f), append(names, s.Server)
	}
	fmt.Fprintf(w, "\n%s\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  server\t%s\tserver CPU %s\tdatabase CPU\tp50\tp99\n", rate, per)
	for i, f := range sides {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", names[i], spreadF(f.perSec), spreadD(f.cpu), spreadD(f.db),
			spreadD(f.p50s), spreadD(f.p99s))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i := 1; i < len(sides); i++ {
		b, p := sides[0], sides[i]
		fmt.Fprintf(w, "  Basalt ÷ %s: throughput %.2f, CPU (server + database) %.2f, p99 %.2f\n", names[i],
			median(b.perSec)/median(p.perSec),
			float64(median(b.total()))/float64(median(p.total())),
			float64(median(b.p99s))/float64(median(p.p99s)))
		if median(p.db) > 0 {
			fmt.Fprintf(w, "  Basalt ÷ %s, database CPU alone: %.2f\n", names[i], float64(median(b.db))/float64(median(p.db)))
		}
	}
	return nil
}

func spreadF(v []float64) string { return spread(v, "%.0f") }

// spread is the median of v and, over several rounds, its range, each
// printed with format.
func spread(v []float64, format string) string {
	if len(v) == 1 {
		return fmt.Sprintf(format, v[0])
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return fmt.Sprintf(format+" ["+format+"–"+format+"]", median(v), lo, hi)
}

func spreadD(v []time.Duration) string {
	if len(v) == 1 {
		return short(v[0])
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return fmt.Sprintf("%s [%s–%s]", short(median(v)), short(lo), short(hi))
}

// short prints a duration with three significant digits.
func short(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d < time.Millisecond:
		return fmt.Sprintf("%.3gµs", float64(d)/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.3gms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.3gs", d.Seconds())
	}
}
