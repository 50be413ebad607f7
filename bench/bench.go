// Package bench is the harness Basalt's benchmarks share. A benchmark is a
// small Go program (bench/<area>/main.go) that measures an operation and a
// baseline for it in the same run (the same work done directly: a bare
// handler, raw pgx, the backend's own read/write) and reports the ratio, so
// figures compare across machines. Every program has a smoke mode
// (-smoke or BENCH_SMOKE=1) that finishes in about a second for CI.
//
//	opts := bench.ParseFlags()
//	base := bench.Run(ctx, "direct", opts, directOp)
//	cand := bench.Run(ctx, "through gateway", opts, gatewayOp)
//	bench.Report(os.Stdout, opts, bench.Comparison{Name: "GET one row", Baseline: base, Candidate: cand})
package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// Options control one benchmark run.
type Options struct {
	Concurrency int           // workers issuing operations at once
	Duration    time.Duration // measured time per case
	Warmup      time.Duration // unmeasured time per case (connections, caches)
	Smoke       bool          // short run for CI: checks the code path, not speed
	JSON        bool          // print results as JSON lines instead of a table
}

// ParseFlags reads -smoke, -c, -d, -warmup and -json from the command line
// (and BENCH_SMOKE=1 from the environment). defaultConcurrency is the
// figure the benchmark's issue asks for (16, 32...).
func ParseFlags(defaultConcurrency int) Options {
	return ParseFlagsFor(defaultConcurrency, 5*time.Second)
}

// ParseFlagsFor is ParseFlags with another default for -d, for a benchmark
// whose one case runs for minutes (a soak).
func ParseFlagsFor(defaultConcurrency int, defaultDuration time.Duration) Options {
	var o Options
	flag.BoolVar(&o.Smoke, "smoke", os.Getenv("BENCH_SMOKE") == "1", "short run for CI")
	flag.IntVar(&o.Concurrency, "c", defaultConcurrency, "concurrent workers")
	flag.DurationVar(&o.Duration, "d", defaultDuration, "measured duration per case")
	flag.DurationVar(&o.Warmup, "warmup", time.Second, "warm-up duration per case")
	flag.BoolVar(&o.JSON, "json", false, "print JSON lines")
	flag.Parse()
	return o.normalize()
}

func (o Options) normalize() Options {
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	if o.Smoke {
		o.Duration, o.Warmup = 300*time.Millisecond, 50*time.Millisecond
		o.Concurrency = min(o.Concurrency, 4)
	}
	if o.Duration <= 0 {
		o.Duration = 5 * time.Second
	}
	return o
}

// Result is what one case measured.
type Result struct {
	Name     string        `json:"name"`
	Ops      int64         `json:"ops"`
	Errors   int64         `json:"errors"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	PerSec   float64       `json:"ops_per_sec"`
	P50      time.Duration `json:"p50_ns"`
	P99      time.Duration `json:"p99_ns"`
	Bytes    int64         `json:"bytes"`
	FirstErr string        `json:"first_error,omitempty"`
	// CPUPerOp is the machine's busy CPU time (every process and the
	// kernel: client, server, database) divided by the operations, and
	// Busy the share of all cores that was busy. Where every side shares
	// the same cores, throughputs are bound by CPU per op; zero where the
	// system does not expose it.
	CPUPerOp time.Duration `json:"cpu_per_op_ns,omitempty"`
	Busy     float64       `json:"busy,omitempty"`
	// DBCPUPerOp is the part of CPUPerOp the database server used (see
	// CountDatabaseCPU).
	DBCPUPerOp time.Duration `json:"db_cpu_per_op_ns,omitempty"`
	// SelfCPUPerOp is the part this process used: the client, and any
	// server the benchmark runs in-process.
	SelfCPUPerOp time.Duration `json:"self_cpu_per_op_ns,omitempty"`
	// AllocsPerOp and AllocBytesPerOp are this process's heap allocations
	// per operation (client and in-process server): unlike CPU time they
	// hold still on a busy machine.
	AllocsPerOp     float64 `json:"allocs_per_op,omitempty"`
	AllocBytesPerOp float64 `json:"alloc_bytes_per_op,omitempty"`
}

// MBPerSec is the throughput for byte-counting operations.
func (r Result) MBPerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Bytes) / r.Elapsed.Seconds() / 1e6
}

// Op is one operation; it returns the bytes it moved (0 if irrelevant).
type Op func(ctx context.Context) (bytes int64, err error)

// Run drives op from opts.Concurrency workers, first for the warm-up, then
// for the measured duration, and records every latency.
func Run(ctx context.Context, name string, opts Options, op Op) Result {
	opts = opts.normalize()
	if opts.Warmup > 0 {
		loop(ctx, opts.Concurrency, opts.Warmup, op, nil)
	}
	lat := make([][]time.Duration, opts.Concurrency)
	var errs, nbytes atomic.Int64
	var firstErr atomic.Value
	cpu0, cpuOK := machineCPU()
	span, heap0 := StartCPUSpan(), heapAllocs()
	start := time.Now()
	loop(ctx, opts.Concurrency, opts.Duration, func(ctx context.Context) (int64, error) {
		n, err := op(ctx)
		if err != nil {
			errs.Add(1)
			firstErr.CompareAndSwap(nil, err.Error())
		}
		nbytes.Add(n)
		return n, err
	}, lat)
	elapsed := time.Since(start)
	ops := 0
	for _, l := range lat {
		ops += len(l)
	}
	selfPerOp, dbPerOp := span.PerOp(ops)
	heap1 := heapAllocs()
	cpu1, cpuOK1 := machineCPU()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	r := NewResult(name, all, errs.Load(), elapsed)
	r.Bytes = nbytes.Load()
	if s, ok := firstErr.Load().(string); ok {
		r.FirstErr = s
	}
	if cpuOK && cpuOK1 && len(all) > 0 {
		busy := cpu1.busy - cpu0.busy
		r.CPUPerOp = busy / time.Duration(len(all))
		if total := cpu1.total - cpu0.total; total > 0 {
			r.Busy = float64(busy) / float64(total)
		}
	}
	r.SelfCPUPerOp, r.DBCPUPerOp = selfPerOp, dbPerOp
	if len(all) > 0 {
		r.AllocsPerOp = float64(heap1.objects-heap0.objects) / float64(len(all))
		r.AllocBytesPerOp = float64(heap1.bytes-heap0.bytes) / float64(len(all))
	}
	return r
}

// NewResult summarises the latencies of every operation (failed ones
// included) measured over elapsed: the count, the rate of those that
// succeeded, p50 and p99. It sorts lat. Run uses it; so do benchmarks that
// drive their own load and keep latencies per kind of request.
func NewResult(name string, lat []time.Duration, errors int64, elapsed time.Duration) Result {
	slices.Sort(lat)
	r := Result{Name: name, Ops: int64(len(lat)), Errors: errors, Elapsed: elapsed}
	if len(lat) > 0 && elapsed > 0 {
		r.PerSec = float64(int64(len(lat))-errors) / elapsed.Seconds()
		r.P50 = lat[len(lat)*50/100]
		r.P99 = lat[min(len(lat)-1, len(lat)*99/100)]
	}
	return r
}

// loop runs op on n workers until d has passed; with lat it records latencies.
func loop(ctx context.Context, n int, d time.Duration, op Op, lat [][]time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				t0 := time.Now()
				_, _ = op(context.WithoutCancel(ctx))
				if lat != nil {
					lat[w] = append(lat[w], time.Since(t0))
				}
			}
		}()
	}
	wg.Wait()
}

// Comparison pairs a candidate with the baseline measured in the same run.
type Comparison struct {
	Name      string
	Baseline  Result
	Candidate Result
}

// Ratio is candidate throughput over baseline throughput (1.0 = no cost).
func (c Comparison) Ratio() float64 {
	if c.Baseline.PerSec == 0 {
		return 0
	}
	return c.Candidate.PerSec / c.Baseline.PerSec
}

// ReportGoal prints which cases' median latency went over goal (over maps
// a case's name to its p50), or that every one of what stayed under it.
func ReportGoal(w io.Writer, goal time.Duration, over map[string]time.Duration, what string) {
	if len(over) > 0 {
		fmt.Fprintf(w, "over the %s goal (p50): %v\n", goal, over)
		return
	}
	fmt.Fprintf(w, "every %s under the %s goal (p50)\n", what, goal)
}

// Report prints the comparisons as a table (or JSON lines with opts.JSON)
// and returns an error when any operation failed, so a broken benchmark
// fails CI even in smoke mode.
func Report(w io.Writer, opts Options, cs ...Comparison) error {
	var failed []string
	if opts.JSON {
		enc := json.NewEncoder(w)
		for _, c := range cs {
			_ = enc.Encode(map[string]any{"name": c.Name, "baseline": c.Baseline, "candidate": c.Candidate, "ratio": c.Ratio(), "smoke": opts.Smoke})
		}
	} else {
		mode := ""
		if opts.Smoke {
			mode = " (smoke run: figures are not meaningful)"
		}
		fmt.Fprintf(w, "concurrency %d, %s per case%s\n", opts.Concurrency, opts.Duration, mode)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "case\tside\tops/s\tp50\tp99\tcpu/op\tof it db\tbusy\terrors\tratio\t")
		for _, c := range cs {
			b, k := c.Baseline, c.Candidate
			fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%d\t\t\n", c.Name, b.Name, b.PerSec, round(b.P50), round(b.P99), cpuCell(b.CPUPerOp), cpuCell(b.DBCPUPerOp), busyCell(b), b.Errors)
			fmt.Fprintf(tw, "\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%d\t%.2f\t\n", k.Name, k.PerSec, round(k.P50), round(k.P99), cpuCell(k.CPUPerOp), cpuCell(k.DBCPUPerOp), busyCell(k), k.Errors, c.Ratio())
		}
		_ = tw.Flush()
	}
	for _, c := range cs {
		for _, r := range []Result{c.Baseline, c.Candidate} {
			if r.Errors > 0 || r.Ops == 0 {
				failed = append(failed, fmt.Sprintf("%s/%s: %d of %d operations failed (first: %s)", c.Name, r.Name, r.Errors, r.Ops, r.FirstErr))
			}
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("benchmark errors:\n  %s", joinLines(failed))
	}
	return nil
}

func cpuCell(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fµs", float64(d)/float64(time.Microsecond))
}

func busyCell(r Result) string {
	if r.Busy == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", r.Busy*100)
}

func joinLines(s []string) string {
	out := ""
	for i, l := range s {
		if i > 0 {
			out += "\n  "
		}
		out += l
	}
	return out
}

func round(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(time.Millisecond)
	case d > time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// HTTPClient returns a client whose connection pool fits the concurrency,
// so benchmarks measure servers rather than connection setup.
func HTTPClient(concurrency int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = concurrency * 2
	t.MaxIdleConnsPerHost = concurrency * 2
	return &http.Client{Transport: t, Timeout: 30 * time.Second}
}

// HTTPOp builds an Op that sends the request made by newReq and expects
// wantStatus; the body is read fully and counted.
func HTTPOp(c *http.Client, wantStatus int, newReq func(ctx context.Context) (*http.Request, error)) Op {
	return func(ctx context.Context) (int64, error) {
		req, err := newReq(ctx)
		if err != nil {
			return 0, err
		}
		res, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		n, err := io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		if err != nil {
			return n, err
		}
		if res.StatusCode != wantStatus {
			return n, fmt.Errorf("%s %s: status %d, want %d", req.Method, req.URL.Path, res.StatusCode, wantStatus)
		}
		return n, nil
	}
}
