// Command coldstart measures `basalt dev` on a fresh data directory: the wall
// time from exec until GET /health answers 200 (the API up, migrations and
// seeds applied, the app's demo data in place), and the CPU time the start
// cost (basalt and every process it ran: initdb, the postmaster and its
// backends; counted from the process's resource usage once it has stopped).
//
// Every start runs in the repository's root, so the app's migrations, seeds
// and demo media are part of it, as they are for anyone who clones it and
// runs `basalt dev`. Three kinds of start, interleaved round by round:
//
//   - first: an empty template cache (the first start on a machine: initdb,
//     migrations, and the template kept for the next ones);
//   - fresh: a new data directory with the template in the cache (every
//     later new project or wiped data directory);
//   - restart: the same data directory again (a cluster already there).
//
// -baseline-bin measures another basalt build's fresh start (a build before
// a change) in the same rounds. -nice runs every start at that scheduling
// priority (root only): on a machine others are using, -nice -19 comes
// closest to the idle machine the goal is stated for.
//
//	go run ./bench/coldstart                  # 5 rounds
//	go run ./bench/coldstart -baseline-bin OLD    # OLD: a basalt binary built before the change
//	go run ./bench/coldstart -smoke           # CI: one round
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/internal/pgtest"
)

var (
	smokeFlag  = flag.Bool("smoke", os.Getenv("BENCH_SMOKE") == "1", "one round, for CI")
	roundsFlag = flag.Int("rounds", 5, "rounds (each runs every kind of start once)")
	binFlag    = flag.String("bin", "", "a built basalt binary (default: build ./cmd/basalt)")
	baseFlag   = flag.String("baseline-bin", "", "another basalt binary whose fresh start is measured in the same rounds")
	keepFlag   = flag.Bool("keep", false, "keep the temporary folder (data directories and logs)")
	niceFlag   = flag.Int("nice", 0, "run each start at this scheduling priority (negative: root only)")
)

// goal is issue #30's bound on a fresh start's wall time, on an idle machine.
const goal = 3 * time.Second

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

// start is one measured start.
type start struct {
	wall, cpu time.Duration
}

func run() error {
	ctx := context.Background()
	root, err := pgtest.ModuleRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "coldstart")
	if err != nil {
		return err
	}
	// The cluster's server user (when we are root) must reach the folders.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if *keepFlag {
		fmt.Println("coldstart: keeping", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	bin, err := bench.BuildBasalt(ctx, root, tmp, *binFlag)
	if err != nil {
		return err
	}
	rounds := *roundsFlag
	if *smokeFlag {
		rounds = 1
	}
	kinds := []string{"first", "fresh", "restart"}
	if *baseFlag != "" {
		kinds = append(kinds, "baseline fresh")
	}
	got := map[string][]start{}
	for r := range rounds {
		cache := filepath.Join(tmp, fmt.Sprintf("cache-%d", r))
		for _, kind := range kinds {
			b, data := bin, filepath.Join(tmp, fmt.Sprintf("data-%d-%s", r, strings.ReplaceAll(kind, " ", "-")))
			switch kind {
			case "fresh":
				// The template the first start of this round left.
			case "restart":
				data = filepath.Join(tmp, fmt.Sprintf("data-%d-fresh", r))
			case "baseline fresh":
				// With the same cache: a build that keeps the same
				// templates finds this round's.
				b = *baseFlag
			}
			logPath := filepath.Join(tmp, fmt.Sprintf("%d-%s.log", r, strings.ReplaceAll(kind, " ", "-")))
			s, err := devStart(ctx, root, b, data, cache, logPath)
			if err != nil {
				return fmt.Errorf("%s start: %w", kind, err)
			}
			fmt.Printf("coldstart: round %d, %s: %s wall, %s CPU\n", r+1, kind, s.wall.Round(time.Millisecond), s.cpu.Round(time.Millisecond))
			got[kind] = append(got[kind], s)
		}
	}
	fmt.Printf("\nbasalt dev until GET /health is 200, %d round(s); %d CPUs, %s; median [min–max]\n", rounds, runtime.NumCPU(), runtime.Version())
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  start\twall\tCPU (basalt, initdb, postgres)")
	for _, kind := range kinds {
		var wall, cpu []time.Duration
		for _, s := range got[kind] {
			wall, cpu = append(wall, s.wall), append(cpu, s.cpu)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", kind, spread(wall), spread(cpu))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Printf("goal: a fresh start under %s of wall time on an idle machine\n", goal)
	return nil
}

// devStart runs `basalt dev` on data (created when missing) with cache as
// its XDG_CACHE_HOME and its output to logPath, waits for /health to answer 200, stops it with
// SIGINT and returns the wall time to health and the CPU time of the whole
// run (the stop included, a small part).
func devStart(ctx context.Context, root, bin, data, cache, logPath string) (start, error) {
	api, err := bench.FreePort()
	if err != nil {
		return start{}, err
	}
	db, err := bench.FreePort()
	if err != nil {
		return start{}, err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return start{}, err
	}
	defer logf.Close()
	cmd := exec.CommandContext(ctx, bin, "dev", "--data-dir", data)
	if *niceFlag != 0 {
		cmd = exec.CommandContext(ctx, "nice", "-n", strconv.Itoa(*niceFlag), bin, "dev", "--data-dir", data)
	}
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(),
		"XDG_CACHE_HOME="+cache,
		"BASALT_API_PORT="+strconv.Itoa(api), "BASALT_DB_PORT="+strconv.Itoa(db),
		"BASALT_APP_PORT=0", "BASALT_STUDIO_PORT=0")
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return start{}, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	health := "http://127.0.0.1:" + strconv.Itoa(api) + "/health"
	hc := &http.Client{Timeout: time.Second}
	var wall time.Duration
	for wall == 0 {
		select {
		case err := <-exited:
			return start{}, fmt.Errorf("basalt dev exited before it was healthy (%v); see %s", err, logPath)
		case <-time.After(5 * time.Millisecond):
		}
		if res, err := hc.Get(health); err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				wall = time.Since(began)
			}
		}
		if time.Since(began) > 3*time.Minute {
			_ = cmd.Process.Kill()
			_ = <-exited // killed: the exit status says nothing more
			return start{}, fmt.Errorf("not healthy after 3 minutes; see %s", logPath)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		return start{}, err
	}
	if err := <-exited; err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return start{}, err
		}
		return start{}, fmt.Errorf("basalt dev stopped with %v; see %s", err, logPath)
	}
	// The process's usage includes every child it waited for (initdb,
	// the postmaster), and theirs (the backends).
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return start{}, errors.New("no resource usage for the process")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return start{wall: wall, cpu: cpu}, nil
}

func spread(v []time.Duration) string {
	s := slices.Clone(v)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s) == 1 {
		return med.Round(10 * time.Millisecond).String()
	}
	return fmt.Sprintf("%s [%s–%s]", med.Round(10*time.Millisecond), s[0].Round(10*time.Millisecond), s[len(s)-1].Round(10*time.Millisecond))
}
