// Command functions measures what the /functions/v1 service adds to a
// request: routing on the function name, the verify_jwt check (an ES256
// signature verification per request), CORS headers and the runtime's error
// handling. The baseline is the same handler served bare by net/http, in the
// same run, over the same loopback HTTP client, so the ratio isolates the
// service's overhead.
//
//	go run ./bench/functions            # 5 s per side, concurrency 32
//	go run ./bench/functions -smoke     # a second per side, for CI
//
// BENCH_SMOKE=1 is the same as -smoke.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
)

func main() {
	smoke := flag.Bool("smoke", os.Getenv("BENCH_SMOKE") != "", "short run for CI")
	dur := flag.Duration("duration", 5*time.Second, "measuring time per side")
	conc := flag.Int("c", 32, "concurrent clients")
	flag.Parse()
	if *smoke {
		*dur = time.Second
	}
	if err := run(*dur, *conc); err != nil {
		fmt.Fprintln(os.Stderr, "bench functions:", err)
		os.Exit(1)
	}
}

// result is one side's measurement.
type result struct {
	reqs    int64
	elapsed time.Duration
	p50     time.Duration
	p99     time.Duration
}

func (r result) rps() float64 { return float64(r.reqs) / r.elapsed.Seconds() }

func run(dur time.Duration, conc int) error {
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
	// The work of a small function: read the caller, answer JSON.
	handler := func(w http.ResponseWriter, r *http.Request) error {
		httpx.WriteJSON(w, http.StatusOK, map[string]string{"ip": httpx.ClientIP(r)})
		return nil
	}
	svc, err := functions.New(functions.Config{Keys: keys},
		functions.Function{Name: "client-ip", VerifyJWT: true, Handler: handler})
	if err != nil {
		return err
	}
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = handler(w, r) }))
	defer bare.Close()
	served := httptest.NewServer(svc)
	defer served.Close()
	// Behind the gateway the token is verified once, upstream; the service
	// then only reads the stored caller. This side measures routing, CORS
	// and error handling alone.
	claims, err := keys.Verify(token, now)
	if err != nil {
		return err
	}
	caller := &jwt.Caller{Token: token, Claims: claims}
	preverified := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		svc.ServeHTTP(w, r.WithContext(jwt.NewContext(r.Context(), caller)))
	}))
	defer preverified.Close()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc * 2}}
	base, err := measure(client, bare.URL+"/client-ip", token, dur, conc)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	fn, err := measure(client, served.URL+"/client-ip", token, dur, conc)
	if err != nil {
		return fmt.Errorf("functions: %w", err)
	}
	gw, err := measure(client, preverified.URL+"/client-ip", token, dur, conc)
	if err != nil {
		return fmt.Errorf("functions behind gateway: %w", err)
	}
	fmt.Printf("functions overhead, concurrency %d, %s per side\n", conc, dur)
	fmt.Printf("%-28s %10s %10s %10s\n", "", "req/s", "p50", "p99")
	fmt.Printf("%-28s %10.0f %10s %10s\n", "baseline (bare net/http)", base.rps(), base.p50, base.p99)
	fmt.Printf("%-28s %10.0f %10s %10s\n", "functions (verify_jwt on)", fn.rps(), fn.p50, fn.p99)
	fmt.Printf("%-28s %10.0f %10s %10s\n", "functions (caller verified)", gw.rps(), gw.p50, gw.p99)
	fmt.Printf("ratio functions/baseline: %.2f (own ES256 check), %.2f (caller verified upstream)\n",
		fn.rps()/base.rps(), gw.rps()/base.rps())
	return nil
}

// measure runs conc clients for dur against url and collects latencies.
func measure(client *http.Client, url, token string, dur time.Duration, conc int) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var (
		n       atomic.Int64
		mu      sync.Mutex
		lat     []time.Duration
		wg      sync.WaitGroup
		failure atomic.Value
	)
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local []time.Duration
			for ctx.Err() == nil {
				req, _ := http.NewRequest(http.MethodPost, url, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("X-Real-Ip", "203.0.113.7")
				t0 := time.Now()
				res, err := client.Do(req)
				if err != nil {
					failure.Store(err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					failure.Store(fmt.Errorf("status %d", res.StatusCode))
					return
				}
				local = append(local, time.Since(t0))
				n.Add(1)
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err, ok := failure.Load().(error); ok {
		return result{}, err
	}
	if len(lat) == 0 {
		return result{}, fmt.Errorf("no request completed")
	}
	slices.Sort(lat)
	return result{reqs: n.Load(), elapsed: time.Since(start), p50: lat[len(lat)/2], p99: lat[len(lat)*99/100]}, nil
}
