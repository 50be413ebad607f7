// Command soak is Basalt's standing soak and fault benchmark. It builds
// cmd/basalt, runs `basalt dev` as a child process on a private data dir
// (the Backline seed: users, tracks, sponsors), and drives a mixed load
// through the requests supabase-js sends: REST reads and writes, password
// sign-ins, token refreshes, storage uploads and downloads, fan streams
// whose sponsored plays pay the artist ₦50 through transfer-payment,
// sponsor top-ups through the payment sandbox, sponsorship invites and
// notifications; every signed-in user in play holds a realtime websocket
// (its notifications as postgres_changes, the shared presence channel, a
// broadcast room). It reports throughput and latency per kind of request,
// the 5xx count, basalt's RSS over time, and at the end checks money and
// acknowledgements against the database: wallets sum to zero and equal
// their ledger, every stream is paid at most once, every write the server
// acknowledged is stored exactly once, and every notification committed
// while its user was subscribed reached that user's client exactly once.
//
//	go run ./bench/soak                     # 5 minutes, 16 workers
//	go run ./bench/soak -duration 60s
//	go run ./bench/soak -faults             # kill -9 PostgreSQL, later basalt, during the load
//	go run ./bench/soak -flood              # one address floods realtime meanwhile
//	go run ./bench/soak -smoke              # CI: a few seconds of all three
//
// The baseline of the ratio is the same run: the last quarter of the load
// against the first (throughput and p99), and basalt's RSS at the end
// against the start. It exits non-zero when a check fails or a request
// outside a fault window failed.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
)

var (
	durationFlag = flag.Duration("duration", 0, "length of the load (default 5m; the same as -d)")
	faultsFlag   = flag.Bool("faults", false, "kill -9 PostgreSQL, later basalt, during the load; check nothing acknowledged is lost")
	binFlag      = flag.String("bin", "", "use this basalt binary instead of building cmd/basalt")
	keepFlag     = flag.Bool("keep", false, "keep the data dir and basalt's log")
	rssEvery     = flag.Duration("rss-every", 10*time.Second, "how often basalt's RSS is sampled")
	pgWait       = flag.Duration("pg-recovery-wait", 10*time.Second, "after PostgreSQL is killed, how long basalt may take to bring it back before the soak restarts basalt")
	rtClients    = flag.Int("realtime-clients", 50, "at most this many signed-in users hold a realtime client at once (0: none)")
	floodFlag    = flag.Bool("flood", false, "one address floods realtime with joins and sockets during the load; the other clients must notice nothing")
)

// plan is one run's settings.
type plan struct {
	opts   bench.Options
	faults bool
	rss    time.Duration
	pgWait time.Duration
	settle time.Duration // after a recovery, still counted in the fault window
	rt     rtPlan
	flood  bool
}

func main() {
	opts := bench.ParseFlagsFor(16, 5*time.Minute)
	if *durationFlag > 0 {
		opts.Duration = *durationFlag
	}
	// Unless -warmup is given: a tenth of the run, at most 10 s, before the
	// measured load (connections, caches, the first RSS growth).
	warmupSet := false
	flag.Visit(func(f *flag.Flag) { warmupSet = warmupSet || f.Name == "warmup" })
	if !warmupSet && !opts.Smoke {
		opts.Warmup = min(10*time.Second, opts.Duration/10)
	}
	p := plan{opts: opts, faults: *faultsFlag, flood: *floodFlag, rss: *rssEvery, pgWait: *pgWait, settle: 2 * time.Second,
		rt: rtPlan{clients: *rtClients, heartbeat: 25 * time.Second, grace: 3 * time.Second, settle: time.Second, joinEvery: 20 * time.Millisecond}}
	if opts.Smoke {
		// Both modes in a few seconds of load: steady phases of a second
		// around the two kills; realtime heartbeats often enough to be seen.
		p.opts.Duration, p.faults, p.flood, p.rss, p.pgWait, p.settle = 3*time.Second, true, true, 500*time.Millisecond, 2*time.Second, time.Second
		p.rt.heartbeat, p.rt.grace, p.rt.settle = 500*time.Millisecond, time.Second, 200*time.Millisecond
	}
	ok, err := run(p, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/soak:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

// result is the whole report (-json prints it as one document).
type result struct {
	Concurrency int           `json:"concurrency"`
	Load        time.Duration `json:"load_ns"`
	Smoke       bool          `json:"smoke"`
	Kinds       []kindReport  `json:"kinds"`
	Windows     []window      `json:"fault_windows"`
	RSS         []rssRun      `json:"rss"`
	Drift       drift         `json:"drift"`
	Checks      []check       `json:"checks"`
	Steady5xx   int64         `json:"steady_5xx"`
	SteadyErrs  int64         `json:"steady_errors"`
	Fault5xx    int64         `json:"fault_5xx"`
	Realtime    *rtReport     `json:"realtime,omitempty"`
	Flood       *floodReport  `json:"flood,omitempty"`
}

func run(p plan, stdout io.Writer) (bool, error) {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	root, err := pgtest.ModuleRoot()
	if err != nil {
		return false, err
	}
	tmp, err := os.MkdirTemp("", "bsoak")
	if err != nil {
		return false, err
	}
	// PostgreSQL runs as an unprivileged user when we are root: it must
	// be able to enter the data dir.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return false, err
	}
	defer func() {
		if *keepFlag {
			fmt.Fprintln(os.Stderr, "bench/soak: kept", tmp)
			return
		}
		_ = os.RemoveAll(tmp)
	}()
	t0 := time.Now()
	bin, err := bench.BuildBasalt(ctx, root, tmp, *binFlag)
	if err != nil {
		return false, err
	}
	progress("basalt built in %s", since(t0))
	s, err := newStack(root, bin, tmp)
	if err != nil {
		return false, err
	}
	t0 = time.Now()
	if err := s.start(ctx); err != nil {
		return false, err
	}
	progress("basalt dev serving %s after %s (data in %s)", s.status().APIURL, since(t0), tmp)
	defer func() {
		if err := s.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "bench/soak: stop basalt:", err)
		}
	}()
	st := s.status()
	pgData, base, err := prepareDB(ctx, st.DBURL)
	if err != nil {
		return false, err
	}
	a := &api{base: st.APIURL, anon: st.AnonKey, service: st.ServiceRoleKey, hc: newHTTPClient(p.opts.Concurrency)}
	var rt *rtManager
	if p.rt.clients > 0 {
		rt = newRTManager(p.rt, st.APIURL, a)
	}
	t0 = time.Now()
	w, err := setupWorld(ctx, a, rt, p.opts.Concurrency)
	if err != nil {
		return false, fmt.Errorf("set-up: %w\n%s", err, s.logTail(20))
	}
	s.setRestarted(w.seedApplied)
	progress("%d users signed in, %d tracks (%d sponsored) in %s; warm-up %s, then load for %s",
		w.fanCount.Load()+6, len(w.tracks), len(w.sponsored), since(t0), p.opts.Warmup, p.opts.Duration)

	// The load: a warm-up that is not measured, then the measured run;
	// with -flood, a hostile client all along.
	var fl *flooder
	floodCtx, stopFlood := context.WithCancel(ctx)
	defer stopFlood()
	if p.flood && rt != nil {
		fl = newFlooder(rt.wsURL)
		fl.start(floodCtx)
	}
	stop := make(chan struct{})
	var bg sync.WaitGroup
	seed := uint64(time.Now().UnixNano())
	for i := range p.opts.Concurrency {
		bg.Add(1)
		rng := mrand.New(mrand.NewPCG(uint64(i), seed))
		go func() { defer bg.Done(); w.worker(stop, rng) }()
	}
	select {
	case <-ctx.Done():
	case <-time.After(p.opts.Warmup):
	}
	start := time.Now()
	rec := newRecorder(start)
	a.rec.Store(rec)
	var samples []rssSample
	var smu sync.Mutex
	rssCtx, stopRSS := context.WithCancel(ctx)
	bg.Add(1)
	go func() { defer bg.Done(); sampleRSS(rssCtx, s, start, p.rss, &samples, &smu) }()
	schedErr := schedule(ctx, p, s, rec.faults, pgData, rt)
	close(stop)
	stopRSS()
	bg.Wait()
	stopFlood()
	if fl != nil {
		fl.stop()
	}
	elapsed := time.Since(start)
	a.rec.Store(nil)

	// The verdict, on a serving stack; also after a Ctrl-C, which only
	// ends the load early.
	ctx, cancelChecks := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancelChecks()
	if !healthy(ctx, st.APIURL) {
		_ = s.stop()
		if err := s.start(ctx); err != nil {
			return false, fmt.Errorf("basalt not serving after the load: %w", err)
		}
	}
	t0 = time.Now()
	presence, probeErr := rt.finish(ctx, w)
	db, err := pg.Connect(ctx, st.DBURL, func(c *pgxpool.Config) { c.MaxConns = 2 })
	if err != nil {
		return false, err
	}
	defer db.Close()
	checks, err := verdict(ctx, db, a, base, w.acks, !p.faults)
	if err != nil {
		return false, fmt.Errorf("checks: %w", err)
	}
	windows := rec.faults.list()
	kinds, d := rec.summarize(elapsed, windows)
	r := result{Concurrency: p.opts.Concurrency, Load: elapsed, Smoke: p.opts.Smoke, Kinds: kinds, Windows: windows,
		RSS: rssRuns(samples), Drift: d}
	if rt != nil {
		rr, rtChecks, err := rt.rtVerdict(ctx, db, presence, start, elapsed, steadyTime(elapsed, windows))
		if err != nil {
			return false, fmt.Errorf("realtime checks: %w", err)
		}
		if probeErr != nil {
			rtChecks = append(rtChecks, check{"end-of-run notifications inserted", false, probeErr.Error()})
		}
		r.Realtime, checks = &rr, append(checks, rtChecks...)
	}
	if r.Flood = fl.report(); r.Flood != nil {
		checks = append(checks, r.Flood.check())
	}
	r.Checks = checks
	progress("checked in %s", since(t0))
	var okOps int64
	for _, k := range kinds {
		r.Steady5xx += k.Steady5xx
		r.SteadyErrs += k.Steady.Errors
		r.Fault5xx += k.Fault5xx
		okOps += k.Steady.Ops - k.Steady.Errors
	}
	allOK := report(stdout, p, r)
	if schedErr != nil {
		return false, schedErr
	}
	if okOps == 0 {
		return false, fmt.Errorf("no request succeeded")
	}
	return allOK && r.SteadyErrs == 0, nil
}

// prepareDB reads the cluster's data directory (where the fault mode
// finds the postmaster's pid) and the money before the load.
func prepareDB(ctx context.Context, dbURL string) (string, before, error) {
	db, err := pg.Connect(ctx, dbURL, func(c *pgxpool.Config) { c.MaxConns = 1 })
	if err != nil {
		return "", before{}, err
	}
	defer db.Close()
	var dir string
	if err := db.QueryRow(ctx, `SHOW data_directory`).Scan(&dir); err != nil {
		return "", before{}, err
	}
	b, err := snapshot(ctx, db)
	return dir, b, err
}

// notePendingInvites marks the sponsor's pairs that hold a pending invite.
func (w *world) notePendingInvites(ctx context.Context, s *user) error {
	q := url.Values{"select": {"artist_id,sponsor_id"}, "sponsor_id": {"eq." + s.id}, "status": {"eq.pending"}}
	b, err := w.api.do(ctx, call{method: http.MethodGet, path: "/rest/v1/sponsor_artist_invites?" + q.Encode(),
		token: s.access, ip: s.ip, header: rest(http.MethodGet), want: http.StatusOK})
	if err != nil {
		return fmt.Errorf("pending invites: %w", err)
	}
	var pending []struct {
		ArtistID  string `json:"artist_id"`
		SponsorID string `json:"sponsor_id"`
	}
	if err := json.Unmarshal(b, &pending); err != nil {
		return err
	}
	for _, p := range pending {
		pair := [2]string{p.SponsorID, p.ArtistID}
		w.setInviteOpen(pair, true)
		w.invitesMu.Lock()
		w.seedInvites = append(w.seedInvites, pair)
		w.invitesMu.Unlock()
	}
	return nil
}

// setupWorld signs in the seed's artists, sponsors and fans, signs up
// more fans, and reads the tracks. Nothing here is measured.
func setupWorld(ctx context.Context, a *api, rt *rtManager, conc int) (*world, error) {
	id := make([]byte, 3)
	_, _ = rand.Read(id)
	target := max(8, 2*conc)
	w := &world{api: a, runID: hex.EncodeToString(id), acks: newAcks(), fanTarget: target, rt: rt, invitesOpen: map[[2]string]bool{},
		fans: make(chan *user, target+conc+8), artists: make(chan *user, 8), sponsors: make(chan *user, 8)}
	seed := [][2]string{
		{"kola", "artist"}, {"zara", "artist"}, {"lekan", "artist"}, {"ife", "artist"},
		{"lagoon", "sponsor"}, {"harmattan", "sponsor"},
		{"ada", "fan"}, {"tunde", "fan"}, {"chioma", "fan"},
	}
	for _, sd := range seed {
		u := &user{email: sd[0] + "@backline.test", password: seedPassword, role: sd[1], ip: w.nextIP()}
		if err := w.signIn(ctx, u); err != nil {
			return nil, err
		}
		if u.role == "fan" {
			w.fanCount.Add(1)
		}
		if u.role == "sponsor" {
			// The seed may hold pending invites: their pairs withdraw first.
			if err := w.notePendingInvites(ctx, u); err != nil {
				return nil, err
			}
		}
		rt.open(u)
		w.release(u)
	}
	for w.fanCount.Load() < int64(target) {
		u, err := w.signUpFan(ctx)
		if err != nil {
			return nil, err
		}
		w.release(u)
	}
	b, err := a.do(ctx, call{method: http.MethodGet, path: "/rest/v1/tracks?" + url.Values{"select": {"id,artist_id,sponsor_id,is_sponsored"}}.Encode(),
		header: rest(http.MethodGet), want: http.StatusOK})
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &w.tracks); err != nil {
		return nil, err
	}
	for _, t := range w.tracks {
		if t.IsSponsored && t.SponsorID != nil {
			w.sponsored = append(w.sponsored, t)
		}
	}
	if len(w.sponsored) == 0 {
		return nil, fmt.Errorf("the seed has no sponsored track")
	}
	return w, nil
}

// schedule runs the load for its duration; with faults, in three equal
// steady phases around a kill -9 of PostgreSQL and one of basalt.
// Realtime clients are closed before each kill and reconnect after the
// window: subscriptions are counted outside fault windows only.
func schedule(ctx context.Context, p plan, s *stack, fc *faultClock, pgData string, rt *rtManager) error {
	sleep := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	if !p.faults {
		sleep(p.opts.Duration)
		return nil
	}
	phase := p.opts.Duration / 3
	if !sleep(phase) {
		return nil
	}
	rt.suspend()
	fc.open("kill -9 the PostgreSQL postmaster")
	pid, err := killPostgres(pgData)
	if err != nil {
		fc.close("nothing killed")
		return err
	}
	how, err := recoverPostgres(ctx, s, pgData, pid, p.pgWait)
	if err != nil {
		fc.close("no recovery")
		return err
	}
	sleep(p.settle)
	fc.close(how)
	rt.resume()
	if !sleep(phase) {
		return nil
	}
	rt.suspend()
	fc.open("kill -9 basalt, then start it again")
	t0 := time.Now()
	if err := s.kill(); err != nil {
		fc.close("not killed")
		return err
	}
	if err := s.start(ctx); err != nil {
		fc.close("no restart")
		return err
	}
	how = fmt.Sprintf("serving again %s after the kill", time.Since(t0).Round(10*time.Millisecond))
	sleep(p.settle)
	fc.close(how)
	rt.resume()
	sleep(phase)
	return nil
}

// recoverPostgres waits for the stack to serve again with a new
// postmaster: basalt restarts PostgreSQL itself when it supervises it.
// Otherwise, after wait, the soak restarts basalt, which starts
// PostgreSQL (crash recovery) as any start does.
func recoverPostgres(ctx context.Context, s *stack, pgData string, killed int, wait time.Duration) (string, error) {
	t0 := time.Now()
	apiURL := s.status().APIURL
	for time.Since(t0) < wait {
		if pid, err := postmasterPID(pgData); err == nil && pid != killed && healthy(ctx, apiURL) {
			return fmt.Sprintf("basalt brought PostgreSQL back in %s", time.Since(t0).Round(10*time.Millisecond)), nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err := s.stop(); err != nil {
		return "", err
	}
	if err := s.start(ctx); err != nil {
		return "", err
	}
	return fmt.Sprintf("no recovery within %s: the soak restarted basalt, serving again %s after the kill",
		wait, time.Since(t0).Round(10*time.Millisecond)), nil
}

// report prints r and reports whether every check passed.
func report(w io.Writer, p plan, r result) bool {
	ok := true
	for _, c := range r.Checks {
		ok = ok && c.OK
	}
	if p.opts.JSON {
		_ = json.NewEncoder(w).Encode(r)
		return ok
	}
	mode := ""
	if r.Smoke {
		mode = " (smoke run: figures are not meaningful)"
	}
	fmt.Fprintf(w, "soak: %s of load, %d workers, faults %v%s\n\n", r.Load.Round(time.Second), r.Concurrency, p.faults, mode)
	printKinds(w, r.Kinds, p.faults)
	if len(r.Windows) > 0 {
		fmt.Fprintln(w, "\nfault windows (requests in them are counted apart)")
		for _, fw := range r.Windows {
			fmt.Fprintf(w, "  %6.1fs – %6.1fs  %s: %s\n", fw.Start.Seconds(), fw.End.Seconds(), fw.What, fw.Recovery)
		}
	}
	printRealtime(w, r.Realtime, p)
	r.Flood.print(w)
	fmt.Fprintf(w, "\nbasalt memory every %s (goal: flat)\n", p.rss)
	for _, rr := range r.RSS {
		fmt.Fprintf(w, "  process %d: RSS first %s, last %s, min %s, max %s, last/first %.2f\n",
			rr.Run, mb(rr.First), mb(rr.Last), mb(rr.Min), mb(rr.Max), rr.Ratio)
		series := func(name string, f func(rssSample) string) {
			fmt.Fprintf(w, "    %-14s", name)
			for _, s := range rr.Samples {
				fmt.Fprintf(w, " %s", f(s))
			}
			fmt.Fprintln(w)
		}
		series("RSS MB", func(s rssSample) string { return fmt.Sprintf("%.1f", float64(s.RSS)/(1<<20)) })
		series("heap in use MB", func(s rssSample) string { return fmt.Sprintf("%.1f", float64(s.HeapInuse)/(1<<20)) })
		series("goroutines", func(s rssSample) string { return strconv.FormatInt(s.Goroutines, 10) })
	}
	d := r.Drift
	fmt.Fprintf(w, "\nbaseline = the first quarter of this run; last quarter vs first (goal: ~1.00)\n")
	fmt.Fprintf(w, "  ok requests/s %.1f → %.1f, ratio %.2f; p99 %s → %s\n", d.FirstOpsPerSec, d.LastOpsPerSec, d.OpsRatio, ms(d.FirstP99), ms(d.LastP99))
	fmt.Fprintf(w, "  5xx outside fault windows: %d (goal 0); other errors outside fault windows: %d; 5xx in fault windows: %d\n",
		r.Steady5xx, r.SteadyErrs-r.Steady5xx, r.Fault5xx)
	fmt.Fprintln(w, "\nmoney, acknowledgements and realtime deliveries (goal: all ok)")
	printChecks(w, r.Checks)
	return ok
}

// progress notes a step on stderr (stdout has only the report).
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench/soak: "+format+"\n", args...)
}

func since(t time.Time) time.Duration { return time.Since(t).Round(10 * time.Millisecond) }
