package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/deno"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/telemetry"
)

const helloTS = `Deno.serve(() => new Response("Hello World"));`

// bareTS serves the same handler with nothing in front, on a loopback port
// and on the unix socket named by its first argument: the unix socket
// first, then the port, printed once both listen.
const bareTS = `const hello = () => new Response("Hello World");
await new Promise((listening) => Deno.serve({ path: Deno.args[0], onListen: listening }, hello));
Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(String(port)) }, hello);`

// runDeno compares a TypeScript hello function served by Basalt (functions
// service → worker proxy → Deno) with the same handler on a bare
// Deno.serve and behind the least a Go server can do (see floor.go), all in
// the same run, and measures cold starts (worker stopped, next request).
func runDeno(ctx context.Context, opts bench.Options, client *http.Client, caller *jwt.Caller) error {
	bin, err := deno.FindBin(os.Getenv)
	if err != nil {
		return fmt.Errorf("the TypeScript case needs deno (just deno): %w", err)
	}
	work, err := os.MkdirTemp("", "bench-functions-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	fnDir := filepath.Join(work, "supabase", "functions")
	if err := os.MkdirAll(filepath.Join(fnDir, "hello"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(fnDir, "hello", "index.ts"), []byte(helloTS), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(work, "bare.ts"), []byte(bareTS), 0o644); err != nil {
		return err
	}

	// The bare server.
	socket := filepath.Join(work, "bare.sock")
	cmd := exec.Command(bin, "run", "--quiet", "--allow-net", "--allow-read="+work, "--allow-write="+work,
		filepath.Join(work, "bare.ts"), socket)
	// The port is read from stdout: no colour codes around it.
	cmd.Env = append(os.Environ(), "DENO_DIR="+filepath.Join(work, "cache"), "NO_COLOR=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return fmt.Errorf("bare deno: %w", err)
	}
	bareHost := "127.0.0.1:" + strings.TrimSpace(line)

	// The floor: the least a Go server in front can do, to the same Deno.
	hopUnix := serveLabeled("hop-unix", &hop{target: &url.URL{Scheme: "http", Host: "deno"}, transport: hopTransport(socket, opts.Concurrency)})
	defer hopUnix.Close()
	hopTCP := serveLabeled("hop-tcp", &hop{target: &url.URL{Scheme: "http", Host: bareHost}, transport: hopTransport("", opts.Concurrency)})
	defer hopTCP.Close()
	stdProxy := serveLabeled("reverseproxy", reverseProxy(&url.URL{Scheme: "http", Host: "deno"}, hopTransport(socket, opts.Concurrency)))
	defer stdProxy.Close()

	rt, err := deno.New(deno.Config{DenoBin: bin, WorkDir: filepath.Join(work, "run"), CacheDir: filepath.Join(work, "cache")})
	if err != nil {
		return err
	}
	defer rt.Close()
	src, err := deno.NewLocalSource(fnDir, 0, nil)
	if err != nil {
		return err
	}
	svc, err := functions.New(functions.Config{GatewayCORS: true, Deno: rt, Sources: []functions.Source{src}})
	if err != nil {
		return err
	}
	// Stands in for the gateway's hand-over: the caller it verified and
	// the request id it gave (which goes to the worker with the request).
	basalt := serveLabeled("basalt", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := telemetry.WithRequestID(jwt.NewContext(r.Context(), caller), "0b6c3a4e-5d1f-4f7a-9a2e-8c1d3b5e7f90")
		svc.ServeHTTP(w, r.WithContext(ctx))
	}))
	defer basalt.Close()

	get := func(url string) bench.Op {
		return bench.HTTPOp(client, http.StatusOK, func(ctx context.Context) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		})
	}
	// Cold starts: stop the worker, time the next request.
	rounds := 10
	if opts.Smoke {
		rounds = 2
	}
	var colds []time.Duration
	for range rounds {
		rt.Stop("hello")
		start := time.Now()
		if _, err := get(basalt.URL + "/hello")(ctx); err != nil {
			return fmt.Errorf("cold start: %w", err)
		}
		colds = append(colds, time.Since(start))
	}
	slices.Sort(colds)
	fmt.Printf("TypeScript cold start (worker stopped, next request answered): median %s, max %s over %d\n",
		colds[len(colds)/2].Round(time.Millisecond), colds[len(colds)-1].Round(time.Millisecond), len(colds))

	// Every side in turn, in one run. The "of it db" column is the Deno
	// process's share: the bare server's for the first four, the
	// function's worker for Basalt.
	// In a -cpuprofile, each side's goroutines (client, server, transport)
	// carry the label side=<label>: go tool pprof -tagfocus side=basalt.
	sides := []struct {
		label, name, url string
		denoPID          int
	}{
		{"bare", "bare Deno.serve", "http://" + bareHost + "/hello", cmd.Process.Pid},
		{"hop-unix", "Go hop → Deno, unix socket", hopUnix.URL + "/hello", cmd.Process.Pid},
		{"hop-tcp", "Go hop → Deno, loopback TCP", hopTCP.URL + "/hello", cmd.Process.Pid},
		{"reverseproxy", "httputil.ReverseProxy → Deno, unix socket", stdProxy.URL + "/hello", cmd.Process.Pid},
		{"basalt", "basalt functions → deno worker", basalt.URL + "/hello", rt.Pid("hello")},
	}
	results := make([]bench.Result, len(sides))
	for i, s := range sides {
		bench.CountDatabaseCPU(s.denoPID)
		pprof.Do(ctx, pprof.Labels("side", s.label), func(ctx context.Context) {
			results[i] = bench.Run(ctx, s.name, opts, get(s.url))
		})
	}
	bare, floorUnix, floorTCP, std, through := results[0], results[1], results[2], results[3], results[4]
	floor := floorUnix
	if floorTCP.PerSec > floor.PerSec {
		floor = floorTCP
	}
	err = bench.Report(os.Stdout, opts,
		bench.Comparison{Name: "the floor, unix socket", Baseline: bare, Candidate: floorUnix},
		bench.Comparison{Name: "the floor, loopback TCP", Baseline: bare, Candidate: floorTCP},
		bench.Comparison{Name: "ReverseProxy in front", Baseline: bare, Candidate: std},
		bench.Comparison{Name: "through Basalt", Baseline: bare, Candidate: through},
		bench.Comparison{Name: "Basalt against the floor", Baseline: floor, Candidate: through})
	if !opts.JSON {
		printGoCPU(os.Stdout, results)
	}
	return err
}

// serveLabeled starts a loopback server whose goroutines (connections,
// and the transport's to Deno they start) carry the profile label
// side=label.
func serveLabeled(label string, h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	pprof.Do(context.Background(), pprof.Labels("side", label), func(context.Context) { srv.Start() })
	return srv
}

// printGoCPU prints this process's CPU time and heap allocations per
// request on each side: the client alone against bare Deno, the client and
// the Go server in front on the others; the difference is the server's.
func printGoCPU(w io.Writer, results []bench.Result) {
	fmt.Fprintln(w, "\nPer request, this Go process (client, and the server in front)")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "side\tCPU\tof it the server\tallocs\tof them the server\tbytes\tof them the server\t")
	client := results[0]
	for i, r := range results {
		server, allocs, bytes := "-", "-", "-"
		if i > 0 {
			server = (r.SelfCPUPerOp - client.SelfCPUPerOp).Round(100 * time.Nanosecond).String()
			allocs = fmt.Sprintf("%.1f", r.AllocsPerOp-client.AllocsPerOp)
			bytes = fmt.Sprintf("%.0f", r.AllocBytesPerOp-client.AllocBytesPerOp)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%s\t%.0f\t%s\t\n", r.Name, r.SelfCPUPerOp.Round(100*time.Nanosecond), server,
			r.AllocsPerOp, allocs, r.AllocBytesPerOp, bytes)
	}
	_ = tw.Flush()
}
