package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/deno"
	"github.com/basaltdev/basalt/internal/jwt"
)

const helloTS = `Deno.serve(() => new Response("Hello World"));`

// bareTS serves the same handler with nothing in front, printing its port.
const bareTS = `Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(String(port)) },
  () => new Response("Hello World"));`

// runDeno compares a TypeScript hello function served by Basalt (functions
// service → worker proxy → Deno) with the same handler on a bare
// Deno.serve, and measures cold starts (worker stopped, next request).
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
	cmd := exec.Command(bin, "run", "--quiet", "--allow-net", filepath.Join(work, "bare.ts"))
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
	bareURL := "http://127.0.0.1:" + strings.TrimSpace(line)

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
	basalt := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		svc.ServeHTTP(w, r.WithContext(jwt.NewContext(r.Context(), caller)))
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

	// The "of it db" column is the Deno process's share: the bare server,
	// then the function's worker.
	bench.CountDatabaseCPU(cmd.Process.Pid)
	s0 := selfCPU()
	base := bench.Run(ctx, "bare Deno.serve", opts, get(bareURL))
	s1 := selfCPU()
	bench.CountDatabaseCPU(rt.Pid("hello"))
	cand := bench.Run(ctx, "basalt functions → deno worker", opts, get(basalt.URL+"/hello"))
	s2 := selfCPU()
	if base.Ops > 0 && cand.Ops > 0 {
		fmt.Printf("CPU per request of this Go process (the client, and Basalt for the second): bare %s, through Basalt %s\n",
			((s1 - s0) / time.Duration(base.Ops)).Round(100*time.Nanosecond), ((s2 - s1) / time.Duration(cand.Ops)).Round(100*time.Nanosecond))
	}
	return bench.Report(os.Stdout, opts, bench.Comparison{Name: "TypeScript hello vs bare Deno", Baseline: base, Candidate: cand})
}

// selfCPU is this process's user and system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
