package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdev/basalt/bench"
)

// clientInfo is the X-Client-Info supabase-js sends from Node.
const clientInfo = "supabase-js/2.119.0; runtime=node"

// outcome classifies one request.
type outcome uint8

const (
	okay       outcome = iota
	status5xx          // the server answered 5xx
	noResponse         // connection refused or reset, timeout
	failed             // an unexpected status, or a body that says no
)

// call is one request as supabase-js would send it.
type call struct {
	kind   string // what the report groups it under
	method string
	path   string // below the API URL, with the query
	token  string // the bearer: a user's access token; "" is the anon key
	key    string // the apikey header; "" is the anon key
	ip     string // the client's address, as the trusted proxy reports it
	json   any    // a JSON body
	raw    []byte // a raw body (storage uploads, forms)
	header map[string]string
	want   int
	// check looks at a 2xx body the status alone does not judge (a
	// business refusal answered 200, a stream the server did not count).
	check func(body []byte) error
}

// requestError is a request that did not succeed, with its class.
type requestError struct {
	out outcome
	msg string
}

func (e *requestError) Error() string { return e.msg }

// outcomeOf is the class of err from api.do (okay for nil).
func outcomeOf(err error) outcome {
	var re *requestError
	if errors.As(err, &re) {
		return re.out
	}
	if err != nil {
		return failed
	}
	return okay
}

// api sends calls to one Basalt and records each in rec while one is set
// (not during set-up, warm-up and checks).
type api struct {
	base, anon, service string
	hc                  *http.Client
	rec                 atomic.Pointer[recorder]
}

// do sends c and returns the response body of a request that succeeded.
func (a *api) do(ctx context.Context, c call) ([]byte, error) {
	t0 := time.Now()
	rec := a.rec.Load()
	var mark faultMark
	if rec != nil {
		mark = rec.faults.mark()
	}
	body, err := a.send(ctx, c)
	if rec != nil {
		rec.add(c.kind, t0, time.Since(t0), outcomeOf(err), mark, err)
	}
	return body, err
}

func (a *api) send(ctx context.Context, c call) ([]byte, error) {
	var rd io.Reader
	if c.json != nil {
		b, err := json.Marshal(c.json)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	} else if c.raw != nil {
		rd = bytes.NewReader(c.raw)
	}
	url := c.path
	if !strings.HasPrefix(url, "http") {
		url = a.base + c.path
	}
	req, err := http.NewRequestWithContext(ctx, c.method, url, rd)
	if err != nil {
		return nil, err
	}
	key, token := c.key, c.token
	if key == "" {
		key = a.anon
	}
	if token == "" {
		token = key
	}
	if key != "-" { // "-": a browser navigation (the sandbox checkout), no keys
		req.Header.Set("apikey", key)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-Client-Info", clientInfo)
	}
	if c.ip != "" {
		req.Header.Set("X-Forwarded-For", c.ip)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	res, err := a.hc.Do(req)
	if err != nil {
		return nil, &requestError{noResponse, fmt.Sprintf("%s %s: %v", c.method, c.path, err)}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, &requestError{noResponse, fmt.Sprintf("%s %s: reading the body: %v", c.method, c.path, err)}
	}
	switch {
	case res.StatusCode >= 500:
		return nil, &requestError{status5xx, fmt.Sprintf("%s %s: %d %s", c.method, c.path, res.StatusCode, clip(b))}
	case res.StatusCode != c.want:
		return nil, &requestError{failed, fmt.Sprintf("%s %s: %d, want %d: %s", c.method, c.path, res.StatusCode, c.want, clip(b))}
	}
	if c.check != nil {
		if err := c.check(b); err != nil {
			return nil, &requestError{failed, fmt.Sprintf("%s %s: %v", c.method, c.path, err)}
		}
	}
	return b, nil
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// Headers of the supabase-js sub-clients.

// rest is what postgrest-js adds: the schema profile, and JSON for writes.
func rest(method string, extra ...string) map[string]string {
	h := map[string]string{}
	if method == http.MethodGet || method == http.MethodHead {
		h["Accept-Profile"] = "public"
	} else {
		h["Content-Profile"] = "public"
		h["Content-Type"] = "application/json"
	}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}

// authHeaders is what auth-js adds to every request.
func authHeaders() map[string]string {
	return map[string]string{"X-Supabase-Api-Version": "2024-01-01", "Content-Type": "application/json;charset=UTF-8"}
}

// fnHeaders is what functions-js adds to a JSON invoke.
func fnHeaders() map[string]string { return map[string]string{"Content-Type": "application/json"} }

// newHTTPClient is the harness's pooled client, not following redirects
// (the sandbox checkout answers 303 to the app, which the soak reads).
func newHTTPClient(concurrency int) *http.Client {
	c := bench.HTTPClient(concurrency)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// faultClock says whether a fault window is open. A request counts in a
// fault window when one was open when it started or ended, or one opened
// and closed while it ran.
type faultClock struct {
	active atomic.Bool
	epoch  atomic.Int64

	mu      sync.Mutex
	start   time.Time
	windows []window
}

// window is one fault, from the kill until the stack served again (plus a
// short settling time).
type window struct {
	What     string        `json:"what"`
	Recovery string        `json:"recovery"`
	Start    time.Duration `json:"start_ns"`
	End      time.Duration `json:"end_ns"`
}

type faultMark struct {
	active bool
	epoch  int64
}

func (f *faultClock) mark() faultMark {
	return faultMark{f.active.Load(), f.epoch.Load()}
}

// in reports whether a request that started at m and ends now was in a
// fault window.
func (f *faultClock) in(m faultMark) bool {
	return m.active || f.active.Load() || f.epoch.Load() != m.epoch
}

func (f *faultClock) open(what string) {
	f.mu.Lock()
	f.windows = append(f.windows, window{What: what, Start: time.Since(f.start)})
	f.mu.Unlock()
	f.epoch.Add(1)
	f.active.Store(true)
}

func (f *faultClock) close(recovery string) {
	f.mu.Lock()
	w := &f.windows[len(f.windows)-1]
	w.Recovery, w.End = recovery, time.Since(f.start)
	f.mu.Unlock()
	f.active.Store(false)
	f.epoch.Add(1)
}

func (f *faultClock) list() []window {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]window(nil), f.windows...)
}
