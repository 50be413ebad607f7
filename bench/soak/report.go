package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/basaltdev/basalt/bench"
)

// event is one request as the load generator saw it.
type event struct {
	at    time.Duration // when it started, since the load began
	dur   time.Duration
	out   outcome
	fault bool // in a fault window
}

type kindLog struct {
	events                  []event
	firstSteady, firstFault string
}

// recorder keeps every request by kind.
type recorder struct {
	start  time.Time
	faults *faultClock

	mu    sync.Mutex
	kinds map[string]*kindLog
}

func newRecorder(start time.Time) *recorder {
	return &recorder{start: start, faults: &faultClock{start: start}, kinds: map[string]*kindLog{}}
}

func (r *recorder) add(kind string, t0 time.Time, d time.Duration, out outcome, m faultMark, err error) {
	fault := r.faults.in(m)
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.kinds[kind]
	if k == nil {
		k = &kindLog{}
		r.kinds[kind] = k
	}
	k.events = append(k.events, event{at: t0.Sub(r.start), dur: d, out: out, fault: fault})
	if err != nil {
		if fault && k.firstFault == "" {
			k.firstFault = err.Error()
		} else if !fault && k.firstSteady == "" {
			k.firstSteady = err.Error()
		}
	}
}

// kindReport is one kind of request over the run.
type kindReport struct {
	Kind string `json:"kind"`
	// Steady is every request outside fault windows: ops, ops/s of those
	// that succeeded over the steady time, p50 and p99.
	Steady           bench.Result `json:"steady"`
	Steady5xx        int64        `json:"steady_5xx"`
	SteadyNoResponse int64        `json:"steady_no_response"`
	SteadyFailed     int64        `json:"steady_other_errors"`
	FaultOps         int64        `json:"fault_ops"`
	Fault5xx         int64        `json:"fault_5xx"`
	FaultNoResponse  int64        `json:"fault_no_response"`
	FaultFailed      int64        `json:"fault_other_errors"`
	FirstSteadyError string       `json:"first_steady_error,omitempty"`
	FirstFaultError  string       `json:"first_fault_error,omitempty"`
}

// drift compares the end of the run with its beginning: the soak's
// baseline is the same stack measured in the first quarter of the run.
type drift struct {
	FirstOpsPerSec float64       `json:"first_quarter_ops_per_sec"`
	LastOpsPerSec  float64       `json:"last_quarter_ops_per_sec"`
	OpsRatio       float64       `json:"ops_ratio"`
	FirstP99       time.Duration `json:"first_quarter_p99_ns"`
	LastP99        time.Duration `json:"last_quarter_p99_ns"`
}

// summarize turns the events into per-kind reports and the drift over
// elapsed, the load's length (steady time is what the fault windows left).
func (r *recorder) summarize(elapsed time.Duration, windows []window) ([]kindReport, drift) {
	steady := steadyTime(elapsed, windows)
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.kinds))
	for n := range r.kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []kindReport
	var all []event
	for _, n := range names {
		k := r.kinds[n]
		kr := kindReport{Kind: n, FirstSteadyError: k.firstSteady, FirstFaultError: k.firstFault}
		var lat []time.Duration
		var errs int64
		for _, e := range k.events {
			if e.fault {
				kr.FaultOps++
				count(e.out, &kr.Fault5xx, &kr.FaultNoResponse, &kr.FaultFailed)
				continue
			}
			lat = append(lat, e.dur)
			if e.out != okay {
				errs++
			}
			count(e.out, &kr.Steady5xx, &kr.SteadyNoResponse, &kr.SteadyFailed)
		}
		kr.Steady = bench.NewResult(n, lat, errs, steady)
		out = append(out, kr)
		all = append(all, k.events...)
	}
	return out, quarters(all, elapsed, windows)
}

// steadyTime is the load's time outside fault windows.
func steadyTime(elapsed time.Duration, windows []window) time.Duration {
	for _, w := range windows {
		elapsed -= w.End - w.Start
	}
	return elapsed
}

func count(o outcome, s5xx, noResp, other *int64) {
	switch o {
	case status5xx:
		*s5xx++
	case noResponse:
		*noResp++
	case failed:
		*other++
	}
}

// quarters compares the successful steady requests of the last quarter of
// the run with those of the first: rate over the steady time in each
// quarter, and p99.
func quarters(all []event, elapsed time.Duration, windows []window) drift {
	q := elapsed / 4
	// Requests are placed by their start; the last slice takes every
	// request that started in it, also those that ended after the load.
	slice := func(from, to time.Duration) (float64, time.Duration) {
		var lat []time.Duration
		for _, e := range all {
			if !e.fault && e.out == okay && e.at >= from && (e.at < to || to == elapsed) {
				lat = append(lat, e.dur)
			}
		}
		steady := to - from
		for _, w := range windows {
			steady -= max(0, min(to, w.End)-max(from, w.Start))
		}
		if steady <= 0 || len(lat) == 0 {
			return 0, 0
		}
		res := bench.NewResult("", lat, 0, steady)
		return res.PerSec, res.P99
	}
	var d drift
	d.FirstOpsPerSec, d.FirstP99 = slice(0, q)
	d.LastOpsPerSec, d.LastP99 = slice(elapsed-q, elapsed)
	if d.FirstOpsPerSec > 0 {
		d.OpsRatio = d.LastOpsPerSec / d.FirstOpsPerSec
	}
	return d
}

// rssSample is basalt's resident memory at one moment, with the Go heap
// in use and the goroutines from its /metrics (they tell a leak from the
// garbage collector's slack); run numbers the basalt process (it changes
// when the fault mode restarts it).
type rssSample struct {
	At         time.Duration `json:"at_ns"`
	Run        int           `json:"run"`
	RSS        int64         `json:"rss_bytes"`
	HeapInuse  int64         `json:"heap_inuse_bytes"`
	Goroutines int64         `json:"goroutines"`
}

// sampleRSS records basalt's RSS every period until ctx ends.
func sampleRSS(ctx context.Context, s *stack, start time.Time, period time.Duration, out *[]rssSample, mu *sync.Mutex) {
	t := time.NewTicker(period)
	defer t.Stop()
	take := func() {
		pid := s.pid()
		if pid == 0 {
			return
		}
		if rss, ok := bench.ProcessRSS(pid); ok {
			s.mu.Lock()
			run := s.runs
			s.mu.Unlock()
			// A process that does not answer yet (starting after a
			// restart) is not sampled: its start-up is not its steady state.
			m, ok := scrape(s.status().APIURL, "go_memstats_heap_inuse_bytes", "go_goroutines")
			if !ok {
				return
			}
			mu.Lock()
			*out = append(*out, rssSample{At: time.Since(start), Run: run, RSS: rss,
				HeapInuse: m["go_memstats_heap_inuse_bytes"], Goroutines: m["go_goroutines"]})
			mu.Unlock()
		}
	}
	take()
	for {
		select {
		case <-ctx.Done():
			take()
			return
		case <-t.C:
			take()
		}
	}
}

// rssRun is the memory of one basalt process over the run.
type rssRun struct {
	Run     int         `json:"run"`
	Samples []rssSample `json:"samples"`
	First   int64       `json:"first_bytes"`
	Last    int64       `json:"last_bytes"`
	Min     int64       `json:"min_bytes"`
	Max     int64       `json:"max_bytes"`
	Ratio   float64     `json:"last_over_first"`
}

func rssRuns(samples []rssSample) []rssRun {
	var out []rssRun
	for _, s := range samples {
		if len(out) == 0 || out[len(out)-1].Run != s.Run {
			out = append(out, rssRun{Run: s.Run, First: s.RSS, Min: s.RSS, Max: s.RSS})
		}
		r := &out[len(out)-1]
		r.Samples = append(r.Samples, s)
		r.Last, r.Min, r.Max = s.RSS, min(r.Min, s.RSS), max(r.Max, s.RSS)
		r.Ratio = float64(r.Last) / float64(r.First)
	}
	return out
}

// scrape reads the named gauges from basalt's Prometheus /metrics; false
// when it does not answer with all of them.
func scrape(apiURL string, names ...string) (map[string]int64, bool) {
	out := map[string]int64{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, apiURL+"/metrics", nil)
	if err != nil {
		return out, false
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return out, false
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && slices.Contains(names, f[0]) {
			if v, err := strconv.ParseFloat(f[1], 64); err == nil {
				out[f[0]] = int64(v)
			}
		}
	}
	return out, len(out) == len(names)
}

// printKinds prints the per-kind table.
func printKinds(w io.Writer, kinds []kindReport, faults bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	head := "kind\tops\tok/s\tp50\tp99\t5xx\tno response\tother errors\t"
	if faults {
		head += "| in fault windows: ops\t5xx\tno response\tother\t"
	}
	fmt.Fprintln(tw, head)
	var tot kindReport
	for _, k := range kinds {
		s := k.Steady
		line := fmt.Sprintf("%s\t%d\t%.1f\t%s\t%s\t%d\t%d\t%d\t", k.Kind, s.Ops, s.PerSec, ms(s.P50), ms(s.P99),
			k.Steady5xx, k.SteadyNoResponse, k.SteadyFailed)
		if faults {
			line += fmt.Sprintf("%d\t%d\t%d\t%d\t", k.FaultOps, k.Fault5xx, k.FaultNoResponse, k.FaultFailed)
		}
		fmt.Fprintln(tw, line)
		tot.Steady.Ops += s.Ops
		tot.Steady.PerSec += s.PerSec
		tot.Steady5xx += k.Steady5xx
		tot.SteadyNoResponse += k.SteadyNoResponse
		tot.SteadyFailed += k.SteadyFailed
		tot.FaultOps += k.FaultOps
		tot.Fault5xx += k.Fault5xx
		tot.FaultNoResponse += k.FaultNoResponse
		tot.FaultFailed += k.FaultFailed
	}
	line := fmt.Sprintf("all\t%d\t%.1f\t\t\t%d\t%d\t%d\t", tot.Steady.Ops, tot.Steady.PerSec, tot.Steady5xx, tot.SteadyNoResponse, tot.SteadyFailed)
	if faults {
		line += fmt.Sprintf("%d\t%d\t%d\t%d\t", tot.FaultOps, tot.Fault5xx, tot.FaultNoResponse, tot.FaultFailed)
	}
	fmt.Fprintln(tw, line)
	_ = tw.Flush()
	for _, k := range kinds {
		if k.FirstSteadyError != "" {
			fmt.Fprintf(w, "  first error, %s: %s\n", k.Kind, k.FirstSteadyError)
		}
	}
}

func ms(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
}

func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }
