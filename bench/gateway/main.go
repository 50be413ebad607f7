// Command gateway measures what the API gateway adds to a request: the API
// key check, one JWT verification, CORS, request id, access log and metrics.
// The baseline is the same service handler served directly by net/http in
// the same run; the ratio is gateway throughput over direct throughput.
//
//	go run ./bench/gateway            # 5 s per case at concurrency 16
//	go run ./bench/gateway -smoke     # CI: a fraction of a second
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
)

// service stands for a cheap service response: a small JSON array, the
// shape of a one-row REST read, so the gateway's own cost dominates.
var service = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	// Touch the caller like a real service would.
	_ = jwt.FromContext(r.Context()).Claims
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `[{"id":1,"title":"Night Drive","plays":42}]`)
})

func main() {
	opts := bench.ParseFlags(16)
	if err := runBench(opts); err != nil {
		fmt.Fprintln(os.Stderr, "bench/gateway:", err)
		os.Exit(1)
	}
}

func runBench(opts bench.Options) error {
	ctx := context.Background()
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		return err
	}
	// The access log is written as in production (JSON), to a sink.
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	gw, err := gateway.New(gateway.Config{}, gateway.Services{REST: service}, keys, log)
	if err != nil {
		return err
	}
	direct := httptest.NewServer(service)
	defer direct.Close()
	through := httptest.NewServer(gw)
	defer through.Close()

	userES, err := keys.Sign(gojwt.MapClaims{"sub": "11111111-1111-1111-1111-111111111111", "role": "authenticated",
		"exp": time.Now().Add(time.Hour).Unix()})
	if err != nil {
		return err
	}
	client := bench.HTTPClient(opts.Concurrency)
	get := func(base, path string, hdr map[string]string) bench.Op {
		return bench.HTTPOp(client, http.StatusOK, func(ctx context.Context) (*http.Request, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
			if err != nil {
				return nil, err
			}
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			return req, nil
		})
	}
	cases := []struct {
		name string
		hdr  map[string]string
	}{
		{"anon key (HS256)", map[string]string{"apikey": keys.AnonKey, "Origin": "http://localhost:3000"}},
		{"user token (ES256)", map[string]string{"apikey": keys.AnonKey, "Authorization": "Bearer " + userES, "Origin": "http://localhost:3000"}},
		{"publishable key swap", map[string]string{"apikey": keys.PublishableKey}},
	}
	var cs []bench.Comparison
	for _, c := range cases {
		base := bench.Run(ctx, "direct", opts, get(direct.URL, "/tracks", c.hdr))
		cand := bench.Run(ctx, "gateway", opts, get(through.URL, "/rest/v1/tracks", c.hdr))
		cs = append(cs, bench.Comparison{Name: c.name, Baseline: base, Candidate: cand})
	}
	return bench.Report(os.Stdout, opts, cs...)
}
