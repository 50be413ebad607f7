// Command rtpeers measures Basalt's realtime service and its idle memory
// against the fastest peers of each job, in the same run, with every
// server in a process of its own so that its CPU time and memory are its
// own:
//
//   - broadcast fan-out against Centrifugo: one publisher, 8 or 100
//     subscribers of its topic, 1 or 8 messages in flight; realtime-js's
//     protocol (vsn 2.0.0, binary broadcasts) against Centrifugo's JSON
//     protocol. Figures per delivery: the server's CPU time (and, for
//     Basalt, PostgreSQL's), deliveries a second, latency from publish to
//     receipt.
//   - postgres_changes against PocketBase's record subscriptions: each
//     worker, signed in as its own user, creates a row through the REST
//     API (PostgREST's POST; PocketBase's records API) and waits until its
//     subscription (filtered to its rows, under a read rule that only
//     lets owners see them) delivers it. Figures per change: the server's
//     CPU, PostgreSQL's, changes a second, latency. A second case posts
//     to a feed that 20 users, each on a socket of their own, may all
//     read: one row, 20 row-level security checks and deliveries.
//   - the single-row read by primary key against PocketBase's records
//     API and pREST (read.go): /rest/v1 as anon under row-level
//     security, PocketBase's getOne on a public collection, pREST's table
//     endpoint on Basalt's own database. Figures per read: the server's
//     CPU and its PostgreSQL's (Basalt's, and pREST's on the same
//     cluster).
//   - idle memory: each server's resident set a few seconds after it
//     started, before any load.
//
// The servers run one after the other, their order alternating by round,
// and every figure is reported as the median over rounds with its range.
// Every delivery is checked: a message lost, duplicated or out of order
// fails the run.
//
// The peers are built from source at pinned versions with `go install`
// (pREST, which the module proxy does not serve, from a clone of its
// repository) into .tools/bin (git-ignored) the first time; -smoke uses them only when
// already built, and otherwise measures Basalt alone and says so.
//
//	go run ./bench/rtpeers                 # 3 rounds, 3 s per run
//	go run ./bench/rtpeers -smoke          # CI: seconds, Basalt alone unless the peers are built
//	go run ./bench/rtpeers -rounds 5 -d 5s -only fanout
//	go run ./bench/rtpeers -baseline-bin OLD  # another Basalt build as a third side
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/internal/pgtest"
)

var (
	roundsFlag = flag.Int("rounds", 3, "runs of each case per server, interleaved")
	binFlag    = flag.String("bin", "", "a built basalt binary (default: build ./cmd/basalt)")
	onlyFlag   = flag.String("only", "", "run only these parts, comma-separated: idle, fanout, changes, feed, read")
	buildFlag  = flag.Bool("build-peers", true, "build missing peers (off with -smoke)")
	keepFlag   = flag.Bool("keep", false, "keep the temporary folder (servers' logs)")
	baseFlag   = flag.String("baseline-bin", "", "another basalt binary (a build before a change) measured as a third side in the same run")
	pgstatFlag = flag.Bool("pgstat", false, "print where PostgreSQL's time went in Basalt's change and read runs (CPU by process, pg_stat_statements; loaded only then)")
)

func main() {
	opts := bench.ParseFlagsFor(8, 3*time.Second)
	if err := run(opts); err != nil {
		fmt.Fprintln(os.Stderr, "bench/rtpeers:", err)
		os.Exit(1)
	}
}

// progress writes a line about the run's progress on stderr.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "rtpeers: "+format+"\n", args...)
}

// part reports whether a part of the benchmark runs.
func part(name string) bool {
	if *onlyFlag == "" {
		return true
	}
	for _, p := range strings.Split(*onlyFlag, ",") {
		if strings.TrimSpace(p) == name {
			return true
		}
	}
	return false
}

func run(opts bench.Options) error {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	rounds := *roundsFlag
	if opts.Smoke {
		rounds = 1
		opts.Warmup = 200 * time.Millisecond
		opts.Duration = 500 * time.Millisecond
	}
	root, err := pgtest.ModuleRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "brtpeers")
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	defer func() {
		if *keepFlag {
			progress("kept %s", tmp)
			return
		}
		_ = os.RemoveAll(tmp)
	}()
	bin, err := bench.BuildBasalt(ctx, root, tmp, *binFlag, buildEnv...)
	if err != nil {
		return err
	}
	build := *buildFlag && !opts.Smoke
	peerBin := func(p peer) string {
		b, err := p.find(ctx, root, build)
		if err != nil {
			if errors.Is(err, errNoPeer) {
				progress("%v: measuring Basalt alone", err)
			} else {
				progress("%s cannot be built here, measuring Basalt alone: %v", p, err)
			}
			return ""
		}
		return b
	}
	rep := &report{opts: opts, rounds: rounds}
	var cfBin, pbBin string
	if part("fanout") {
		if cfBin = peerBin(centrifugo); cfBin != "" {
			rep.peers = append(rep.peers, centrifugo.String())
		}
	}
	var prestBin string
	if part("read") {
		if b, err := findPREST(ctx, root, build); err != nil {
			progress("%v: the read is measured without it", err)
		} else {
			prestBin = b
			rep.peers = append(rep.peers, prestPeer)
		}
	}
	if part("changes") || part("feed") || part("idle") || part("read") {
		if pbBin = peerBin(pocketbase); pbBin != "" {
			rep.peers = append(rep.peers, pocketbase.String())
		}
	}

	bs, err := startBasalt(ctx, "Basalt", bin, tmp, changesSchema+feedSchema+readSchema)
	if err != nil {
		return err
	}
	defer bs.close()
	progress("basalt serve on %s", bs.url)
	stacks := []*basaltStack{bs}
	if *baseFlag != "" {
		base, err := startBasalt(ctx, "Basalt (baseline)", *baseFlag, tmp, changesSchema+feedSchema+readSchema)
		if err != nil {
			return err
		}
		defer base.close()
		stacks = append(stacks, base)
		rep.peers = append(rep.peers, "Basalt (baseline): "+*baseFlag)
	}
	var pb *pocketBase
	if pbBin != "" {
		if pb, err = startPocketBase(ctx, pbBin, tmp); err != nil {
			return err
		}
		defer pb.stop()
	}
	if part("idle") {
		if rep.idle, err = measureIdle(ctx, opts, rounds, stacks, pb); err != nil {
			return err
		}
	}
	if part("fanout") {
		var cf *proc
		if cfBin != "" {
			if cf, err = startCentrifugo(ctx, cfBin, tmp); err != nil {
				return err
			}
			defer cf.stop()
		}
		if rep.fanout, err = fanoutPart(ctx, opts, rounds, stacks, cf); err != nil {
			return err
		}
	}
	if part("changes") {
		if rep.changes, err = changesPart(ctx, opts, rounds, stacks, pb); err != nil {
			return err
		}
	}
	if part("feed") {
		feed, err := feedPart(ctx, opts, rounds, stacks, pb)
		if err != nil {
			return err
		}
		rep.changes = append(rep.changes, feed)
	}
	if part("read") {
		if rep.reads, err = readPart(ctx, opts, rounds, stacks, pb, prestBin, tmp); err != nil {
			return err
		}
	}
	return rep.print(os.Stdout)
}

// fanoutCases are the workloads.
var fanoutCases = []fanoutCase{{subs: 8, inflight: 8}, {subs: 100, inflight: 8}, {subs: 100, inflight: 1}}

// result is what one run of a case measured: operations (deliveries, or
// changes delivered) and, per operation, the server's CPU time and its
// database's.
type result struct {
	Ops       int64         `json:"ops"`
	Elapsed   time.Duration `json:"elapsed_ns"`
	PerSec    float64       `json:"ops_per_sec"`
	ServerCPU time.Duration `json:"server_cpu_per_op_ns"`
	DBCPU     time.Duration `json:"db_cpu_per_op_ns"`
	P50       time.Duration `json:"p50_ns"`
	P99       time.Duration `json:"p99_ns"`
}

// finish computes the rates from Ops, Elapsed, the server's CPU time and
// DBCPU (the database's, in total) over the run, and the latencies.
func (r *result) finish(serverCPU time.Duration, lat []time.Duration) {
	r.PerSec = float64(r.Ops) / r.Elapsed.Seconds()
	r.ServerCPU = serverCPU / time.Duration(r.Ops)
	r.DBCPU /= time.Duration(r.Ops)
	r.P50, r.P99 = percentiles(lat)
}

// sideRuns is one server's results over the rounds of a case.
type sideRuns struct {
	Server string   `json:"server"`
	Runs   []result `json:"runs"`
}

// caseRows is one case's results, Basalt first.
type caseRows struct {
	Case  string     `json:"case"`
	Sides []sideRuns `json:"sides"`
}

// newCaseRows starts a case's results with a column per side, in order.
func newCaseRows[S any](name string, sides []S, server func(S) string) caseRows {
	rows := caseRows{Case: name}
	for _, s := range sides {
		rows.Sides = append(rows.Sides, sideRuns{Server: server(s)})
	}
	return rows
}

func fanoutPart(ctx context.Context, opts bench.Options, rounds int, stacks []*basaltStack, cf *proc) ([]caseRows, error) {
	type side struct {
		name  string
		proto fanoutProto
		cpu   func() time.Duration
		db    func() time.Duration
	}
	var sides []side
	for _, bs := range stacks {
		sides = append(sides, side{name: bs.name, proto: basaltFanout{url: bs.wsURL(bs.keys.AnonKey)}, cpu: bs.cpu, db: bs.dbCPU})
	}
	if cf != nil {
		url := "ws" + strings.TrimPrefix(cf.url, "http") + "/connection/websocket"
		sides = append(sides[:1], append([]side{{name: centrifugo.String(), proto: centrifugoFanout{url: url}, cpu: cf.cpu}}, sides[1:]...)...)
	}
	cases := fanoutCases
	if opts.Smoke {
		cases = []fanoutCase{{subs: 8, inflight: 8}, {subs: 100, inflight: 8}}
	}
	var out []caseRows
	for ci, c := range cases {
		rows := newCaseRows(c.String(), sides, func(s side) string { return s.name })
		for r := range rounds {
			for k := range sides {
				i := (k + r) % len(sides) // alternate who goes first
				s := sides[i]
				topic := fmt.Sprintf("room-%d-%d", ci, r)
				res, err := runFanout(ctx, s.proto, c, topic, opts.Warmup, opts.Duration, s.cpu, s.db)
				if err != nil {
					return nil, fmt.Errorf("fan-out %s, %s: %w", c, s.name, err)
				}
				progress("fan-out %s, %s: %.0f deliveries/s, server CPU %s per delivery, p99 %s",
					c, s.name, res.PerSec, res.ServerCPU, res.P99)
				rows.Sides[i].Runs = append(rows.Sides[i].Runs, res)
			}
		}
		out = append(out, rows)
	}
	return out, nil
}
