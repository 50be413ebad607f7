// Command functions measures what the /functions/v1 service adds to a
// request: routing on the function name, the verify_jwt check, CORS and the
// runtime's error handling. The baseline is the same handler served bare by
// net/http in the same run, over the same loopback HTTP client, so the ratio
// isolates the service's overhead. Two candidates:
//
//   - behind the gateway: the caller was verified upstream and stored in the
//     request context (how `basalt dev` and `basalt serve` run it);
//
//   - standalone: the service verifies the ES256 access token itself.
//
// A TypeScript case runs a hello function on Deno through the service (a
// worker process behind Basalt's proxy) against the same file served by a
// bare `deno run` in the same run, and against that bare Deno behind the
// least a Go server in front can do (the floor of any design that keeps
// one on the path), and reports cold starts.
//
//	go run ./bench/functions            # 5 s per case, concurrency 32
//	go run ./bench/functions -smoke     # CI: checks the path, ~1 s
//	go run ./bench/functions -only ts   # the TypeScript case alone
//	go run ./bench/functions -only ts -cpuprofile cpu.out   # then: go tool pprof -tagfocus side=basalt
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
)

func main() {
	only := flag.String("only", "", "run one case: go (the Go handler cases) or ts (TypeScript on Deno)")
	cpuProfile := flag.String("cpuprofile", "", "write this process's CPU profile (client and Basalt) to the file")
	memProfile := flag.String("memprofile", "", "write this process's allocation profile (client and Basalt; every allocation, which slows the run) to the file")
	opts := bench.ParseFlags(32)
	if *memProfile != "" {
		runtime.MemProfileRate = 1
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench functions:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	err := run(opts, *only)
	if err == nil && *memProfile != "" {
		err = writeAllocs(*memProfile)
	}
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "bench functions:", err)
		os.Exit(1)
	}
}

// writeAllocs writes the allocation profile (go tool pprof -sample_index=alloc_space).
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func run(opts bench.Options, only string) error {
	now := time.Now()
	keys, err := jwt.Generate(now)
	if err != nil {
		return err
	}
	token, err := keys.Sign(gojwt.MapClaims{"sub": "8d0fd2b3-9ca7-4c9e-9d0c-1d2f5e3f4a10", "role": "authenticated",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})
	if err != nil {
		return err
	}
	// The work of a small function: read the caller's address, answer JSON
	// (what client-ip does).
	handler := func(w http.ResponseWriter, r *http.Request) error {
		httpx.WriteJSON(w, http.StatusOK, map[string]string{"ip": httpx.ClientIP(r)})
		return nil
	}
	fn := functions.Function{Name: "client-ip", VerifyJWT: true, Handler: handler}
	standalone, err := functions.New(functions.Config{Keys: keys}, fn)
	if err != nil {
		return err
	}
	behind, err := functions.New(functions.Config{GatewayCORS: true}, fn)
	if err != nil {
		return err
	}
	claims, err := keys.Verify(token, now)
	if err != nil {
		return err
	}
	caller := &jwt.Caller{Token: token, Claims: claims}

	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = handler(w, r) }))
	defer bare.Close()
	alone := httptest.NewServer(standalone)
	defer alone.Close()
	// Stands in for the gateway's hand-over: the caller it verified.
	gated := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		behind.ServeHTTP(w, r.WithContext(jwt.NewContext(r.Context(), caller)))
	}))
	defer gated.Close()

	client := bench.HTTPClient(opts.Concurrency)
	ctx := context.Background()
	if only == "ts" {
		return runDeno(ctx, opts, client, caller)
	}
	op := func(url string) bench.Op {
		return bench.HTTPOp(client, http.StatusOK, func(ctx context.Context) (*http.Request, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/client-ip", nil)
			if err != nil {
				return nil, err
			}
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set(httpx.ClientIPHeader, "203.0.113.7")
			return req, nil
		})
	}
	base := bench.Run(ctx, "bare net/http", opts, op(bare.URL))
	viaGateway := bench.Run(ctx, "functions, caller verified upstream", opts, op(gated.URL))
	baseAgain := bench.Run(ctx, "bare net/http", opts, op(bare.URL))
	own := bench.Run(ctx, "functions, own ES256 check", opts, op(alone.URL))
	if err := bench.Report(os.Stdout, opts,
		bench.Comparison{Name: "invoke behind gateway", Baseline: base, Candidate: viaGateway},
		bench.Comparison{Name: "invoke standalone", Baseline: baseAgain, Candidate: own}); err != nil {
		return err
	}
	if only == "go" {
		return nil
	}
	return runDeno(ctx, opts, client, caller)
}
