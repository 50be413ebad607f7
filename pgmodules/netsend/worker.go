// Package netsend is Basalt's sender for HTTP requests queued from SQL with
// pg_net's interface (net.http_get/http_post/http_delete, and Database
// Webhooks through supabase_functions.http_request; see
// sql/platform/0022_net.sql). Every node runs one Worker: it claims
// committed requests with FOR UPDATE SKIP LOCKED (so each is sent by one
// node), sends them with bounded concurrency overall and per host and a
// timeout each, and records the answer, or why there is none, in
// net._http_response. It is woken by NOTIFY basalt_net and polls as a
// fallback. An SSRF guard refuses loopback, link-local and private
// addresses at connect time unless they are allowed.
package netsend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pg"
)

// Channel is the notification channel queued requests wake senders on.
const Channel = "basalt_net"

// leaseGrace is added to a request's timeout for its claim: a claim that
// ran out means the node that held it died, and the request is sent again.
const leaseGrace = 30 * time.Second

// Worker sends the queued requests of one database.
type Worker struct {
	cfg    Config
	db     *pgxpool.Pool
	log    *slog.Logger
	client *http.Client

	wake chan struct{}
	// stopping ends the requests in flight StopGrace after Run's context.
	stopping context.Context

	mu       sync.Mutex
	inFlight int
	perHost  map[string]int
	sends    sync.WaitGroup
}

// New builds a worker over the admin pool (the owner of the net schema).
func New(cfg Config, db *pgxpool.Pool, log *slog.Logger) *Worker {
	cfg.defaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g := guard{allowed: cfg.Allowed}
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: g.control}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would connect on our behalf, past the guard
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   cfg.HostConcurrency,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &Worker{
		cfg: cfg, db: db, log: log,
		client: &http.Client{
			Transport: transport,
			// As pg_net: a redirect is an answer, not followed.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		wake:    make(chan struct{}, 1),
		perHost: map[string]int{},
	}
}

// Run sends until ctx ends, then lets the requests in flight finish for up
// to Config.StopGrace before it returns; those still waiting then are
// handed back to the queue, to be sent by another node or after a restart.
func (w *Worker) Run(ctx context.Context) {
	if w.cfg.Disabled {
		return
	}
	stopping, stop := context.WithCancel(context.Background())
	defer stop()
	w.stopping = stopping
	go func() {
		select {
		case <-ctx.Done():
			select {
			case <-time.After(w.cfg.StopGrace):
				stop()
			case <-stopping.Done():
			}
		case <-stopping.Done():
		}
	}()
	var bg sync.WaitGroup
	bg.Add(2)
	go func() { defer bg.Done(); w.listen(ctx) }()
	go func() { defer bg.Done(); w.sweep(ctx) }()
	tick := time.NewTicker(w.cfg.Poll)
	defer tick.Stop()
	for {
		w.dispatch(ctx)
		select {
		case <-ctx.Done():
			bg.Wait()
			w.sends.Wait()
			return
		case <-w.wake:
		case <-tick.C:
		}
	}
}

func (w *Worker) poke() { pg.Poke(w.wake) }

// request is one claimed row of net.http_request_queue.
type request struct {
	ID        int64
	Method    string
	URL       string
	Headers   map[string]any
	Body      []byte
	TimeoutMS int
	Host      string
}

// hostExpr is a request's host (and port) as the claim query sees it; the
// per-host limit counts with the same value.
const hostExpr = `lower(substring(url from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?([^/?#]*)'))`

const claimSQL = `
WITH picked AS (
  SELECT id FROM net.http_request_queue
  WHERE (claimed_until IS NULL OR claimed_until < now())
    AND NOT (coalesce(` + hostExpr + `, '') = ANY($2))
  ORDER BY id
  LIMIT $1
  FOR UPDATE SKIP LOCKED
)
UPDATE net.http_request_queue q
SET claimed_until = now() + make_interval(secs => least(q.timeout_milliseconds, $3) / 1000.0 + $4)
FROM picked
WHERE q.id = picked.id
RETURNING q.id, q.method, q.url, q.headers, q.body, q.timeout_milliseconds, coalesce(` + hostExpr + `, '')`

// dispatch claims as many requests as there are free slots and starts
// sending them.
func (w *Worker) dispatch(ctx context.Context) {
	for ctx.Err() == nil {
		w.mu.Lock()
		free := w.cfg.Concurrency - w.inFlight
		full := []string{}
		for h, n := range w.perHost {
			if n >= w.cfg.HostConcurrency {
				full = append(full, h)
			}
		}
		w.mu.Unlock()
		if free <= 0 {
			return
		}
		rows, err := w.db.Query(ctx, claimSQL, free, full, w.cfg.MaxTimeout.Milliseconds(), leaseGrace.Seconds())
		if err != nil {
			if ctx.Err() == nil {
				w.log.Warn("net: claim requests", "err", err)
			}
			return
		}
		reqs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[request])
		if err != nil {
			if ctx.Err() == nil {
				w.log.Warn("net: claim requests", "err", err)
			}
			return
		}
		var back []int64
		w.mu.Lock()
		for _, r := range reqs {
			if w.perHost[r.Host] >= w.cfg.HostConcurrency {
				back = append(back, r.ID)
				continue
			}
			w.perHost[r.Host]++
			w.inFlight++
			w.sends.Add(1)
			go w.send(r)
		}
		w.mu.Unlock()
		if len(back) > 0 {
			// More for one host than it may have in flight: hand them back
			// for the next round, which leaves that host out.
			if _, err := w.db.Exec(ctx, `UPDATE net.http_request_queue SET claimed_until = NULL WHERE id = ANY($1)`, back); err != nil {
				w.log.Warn("net: hand back requests", "err", err)
			}
		}
		if len(reqs) < free {
			return
		}
	}
}

// answer is one row of net._http_response.
type answer struct {
	status      *int
	contentType *string
	headers     map[string]string
	content     *string
	timedOut    bool
	errMsg      *string
	// handBack: the node stopped before the request was answered.
	handBack bool
}

func (w *Worker) send(r request) {
	defer func() {
		w.mu.Lock()
		w.inFlight--
		if w.perHost[r.Host]--; w.perHost[r.Host] <= 0 {
			delete(w.perHost, r.Host)
		}
		w.mu.Unlock()
		w.sends.Done()
		w.poke()
	}()
	timeout := min(time.Duration(r.TimeoutMS)*time.Millisecond, w.cfg.MaxTimeout)
	a := w.do(r, timeout)
	// Recording is not tied to the worker's context: a request sent while
	// the node shuts down still gets its answer written.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if a.handBack {
		if _, err := w.db.Exec(ctx, `UPDATE net.http_request_queue SET claimed_until = NULL WHERE id = $1`, r.ID); err != nil {
			w.log.Warn("net: hand back a request at shutdown; its claim runs out instead", "id", r.ID, "err", err)
		}
		return
	}
	_, err := w.db.Exec(ctx, `
WITH done AS (DELETE FROM net.http_request_queue WHERE id = $1)
INSERT INTO net._http_response (id, status_code, content_type, headers, content, timed_out, error_msg)
VALUES ($1, $2, $3, $4, $5, $6, $7)`, r.ID, a.status, a.contentType, a.headers, a.content, a.timedOut, a.errMsg)
	if err != nil {
		// The claim runs out and the request is sent again.
		w.log.Error("net: record the answer", "id", r.ID, "err", err)
	}
}

func (w *Worker) do(r request, timeout time.Duration) answer {
	ctx, cancel := context.WithTimeout(w.stopping, timeout)
	defer cancel()
	failed := func(err error) answer {
		if w.stopping.Err() != nil && ctx.Err() != context.DeadlineExceeded {
			return answer{handBack: true}
		}
		var refused *RefusedError
		msg := err.Error()
		timedOut := false
		switch {
		case errors.As(err, &refused):
			msg = refused.Error()
		case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
			timedOut = true
			msg = fmt.Sprintf("Timeout of %d ms reached", timeout.Milliseconds())
		}
		return answer{timedOut: timedOut, errMsg: &msg}
	}
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL, body)
	if err != nil {
		return failed(err)
	}
	req.Header.Set("User-Agent", "Basalt-net")
	for k, v := range r.Headers {
		if s, ok := v.(string); ok {
			req.Header.Set(k, s)
		} else if b, err := json.Marshal(v); err == nil {
			req.Header.Set(k, string(b))
		}
	}
	res, err := w.client.Do(req)
	if err != nil {
		return failed(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, w.cfg.MaxResponseBytes+1))
	a := answer{status: &res.StatusCode, headers: map[string]string{}}
	for k, v := range res.Header {
		a.headers[k] = strings.Join(v, ", ")
	}
	if ct := res.Header.Get("Content-Type"); ct != "" {
		a.contentType = &ct
	}
	if err != nil {
		f := failed(err)
		a.timedOut, a.errMsg = f.timedOut, f.errMsg
		if f.handBack {
			msg := "content cut short: the node stopped"
			a.errMsg = &msg
		}
	} else if int64(len(raw)) > w.cfg.MaxResponseBytes {
		raw = raw[:w.cfg.MaxResponseBytes]
		msg := fmt.Sprintf("content truncated to %d bytes (BASALT_NET_MAX_RESPONSE_BYTES)", w.cfg.MaxResponseBytes)
		a.errMsg = &msg
	}
	// content is text: keep what PostgreSQL can store.
	content := strings.ReplaceAll(strings.ToValidUTF8(string(raw), "\uFFFD"), "\x00", "")
	a.content = &content
	return a
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// listen wakes the worker on every NOTIFY basalt_net, and once the
// listener (re)connects, for requests queued while no one listened.
func (w *Worker) listen(ctx context.Context) {
	l, stop := pg.OwnListener(w.cfg.Listener, w.db, w.log)
	defer stop()
	sub := l.Subscribe(Channel, pg.Handler{Notify: func(string) { w.poke() }, Connected: w.poke})
	defer sub.Close()
	<-ctx.Done()
}

// sweep deletes answers older than the TTL, as pg_net does.
func (w *Worker) sweep(ctx context.Context) {
	every := min(w.cfg.TTL/4, time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, err := w.db.Exec(ctx, `DELETE FROM net._http_response WHERE created < now() - make_interval(secs => $1)`,
			w.cfg.TTL.Seconds()); err != nil && ctx.Err() == nil {
			w.log.Warn("net: delete old answers", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
