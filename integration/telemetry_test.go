package integration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/internal/telemetry"
	"github.com/basaltdev/basalt/rest"
)

// Tests here change the process-wide tracer provider: none runs in parallel.

const itemsSQL = `
CREATE TABLE public.items (id int PRIMARY KEY, name text NOT NULL);
INSERT INTO public.items VALUES (1, 'one'), (2, 'two');
GRANT SELECT ON public.items TO anon, authenticated;
CREATE FUNCTION public.slow() RETURNS int LANGUAGE sql AS $$ SELECT pg_sleep(30); SELECT 1 $$;
GRANT EXECUTE ON FUNCTION public.slow() TO anon;
`

// logBuf collects JSON log lines from concurrent handlers.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lines returns the log lines whose request_id is id.
func (l *logBuf) lines(id string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, s := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(s), &m) == nil && m["request_id"] == id {
			out = append(out, m)
		}
	}
	return out
}

// waitLine polls for the line of request id with message msg (the access
// log line is written after the response has gone out).
func (l *logBuf) waitLine(t *testing.T, id, msg string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, m := range l.lines(id) {
			if m["msg"] == msg {
				return m
			}
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Fatalf("no %q line with request_id %s in:\n%s", msg, id, l.b.String())
	return nil
}

// stack is a gateway over real REST and functions services on a fresh
// database, logging through the telemetry handler.
type stack struct {
	db   *pgtest.DB
	keys *jwt.Keys
	srv  *httptest.Server
	logs *logBuf
	reg  *prometheus.Registry
}

func newStack(t *testing.T, fns ...functions.Function) *stack {
	t.Helper()
	db := pgtest.NewDB(t)
	if _, err := db.Admin.Exec(context.Background(), itemsSQL); err != nil {
		t.Fatal(err)
	}
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuf{}
	log := slog.New(telemetry.NewLogHandler(slog.NewJSONHandler(logs, nil)))
	restSvc, err := rest.New(rest.Config{}, db.User, db.Admin, rest.WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(restSvc.Close)
	fnSvc, err := functions.New(functions.Config{Keys: keys, GatewayCORS: true, Log: log}, fns...)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	gw, err := gateway.New(gateway.Config{Registry: reg}, gateway.Services{REST: restSvc, Functions: fnSvc}, keys, log)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)
	return &stack{db: db, keys: keys, srv: srv, logs: logs, reg: reg}
}

func (s *stack) get(t *testing.T, path string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", s.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("apikey", s.keys.AnonKey)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// traceOn sends spans to an in-memory recorder until the test ends.
func traceOn(t *testing.T) *tracetest.SpanRecorder {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	telemetry.SetTracerProvider(tp)
	t.Cleanup(func() {
		telemetry.SetTracerProvider(nil)
		_ = tp.Shutdown(context.Background())
	})
	return rec
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// serverSpan waits for the ended server span of request id.
func serverSpan(t *testing.T, rec *tracetest.SpanRecorder, id string) sdktrace.ReadOnlySpan {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, s := range rec.Ended() {
			if s.SpanKind() == trace.SpanKindServer && attrs(s)["basalt.request_id"].AsString() == id {
				return s
			}
		}
	}
	t.Fatalf("no server span for request %s", id)
	return nil
}

// children are the ended spans whose parent is p.
func children(rec *tracetest.SpanRecorder, p sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Parent().SpanID() == p.SpanContext().SpanID() && s.SpanContext().TraceID() == p.SpanContext().TraceID() {
			out = append(out, s)
		}
	}
	return out
}

// TestTraceRESTRequestToDatabase: a REST request through the gateway is one
// server span, continuing the caller's trace, whose children are the pool
// acquire and the pipelined statements REST sent to PostgreSQL.
func TestTraceRESTRequestToDatabase(t *testing.T) {
	rec := traceOn(t)
	s := newStack(t)
	if s.db.User.Config().ConnConfig.Tracer == nil {
		t.Fatal("pool opened while tracing is on has no pgx tracer")
	}
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	res, body := s.get(t, "/rest/v1/items?select=id,name&order=id", map[string]string{
		"X-Request-Id": "rest-trace-1", "traceparent": "00-" + traceID + "-" + parentID + "-01"})
	if res.StatusCode != 200 || !strings.Contains(body, `{"id":2,"name":"two"}`) {
		t.Fatalf("GET items: %d %s", res.StatusCode, body)
	}
	srv := serverSpan(t, rec, "rest-trace-1")
	if srv.SpanContext().TraceID().String() != traceID || srv.Parent().SpanID().String() != parentID {
		t.Errorf("server span in trace %s under %s, want the caller's %s under %s",
			srv.SpanContext().TraceID(), srv.Parent().SpanID(), traceID, parentID)
	}
	if srv.Name() != "GET /rest/v1/*" {
		t.Errorf("server span name %q", srv.Name())
	}
	a := attrs(srv)
	for k, want := range map[attribute.Key]string{"http.request.method": "GET", "http.route": "/rest/v1/*",
		"url.path": "/rest/v1/items", "basalt.service": "rest", "basalt.request_id": "rest-trace-1", "client.address": "127.0.0.1"} {
		if got := a[k].AsString(); got != want {
			t.Errorf("server span %s = %q, want %q", k, got, want)
		}
	}
	if got := a["http.response.status_code"].AsInt64(); got != 200 {
		t.Errorf("server span http.response.status_code = %d, want 200", got)
	}

	var dbSpan, acquire sdktrace.ReadOnlySpan
	for _, c := range children(rec, srv) {
		switch {
		case strings.HasPrefix(c.Name(), "BATCH"):
			dbSpan = c
		case c.Name() == "pool.acquire":
			acquire = c
		}
	}
	if dbSpan == nil || acquire == nil {
		t.Fatalf("children of the server span: %v; want a BATCH statement span and a pool.acquire span", names(children(rec, srv)))
	}
	da := attrs(dbSpan)
	q := da["db.query.text"].AsString()
	if dbSpan.SpanKind() != trace.SpanKindClient || da["db.system.name"].AsString() != "postgresql" ||
		!strings.Contains(q, "set_config") || !strings.Contains(q, `"public"."items"`) || da["db.operation.batch.size"].AsInt64() < 2 {
		t.Errorf("db span %q kind %v attributes %v", dbSpan.Name(), dbSpan.SpanKind(), da)
	}
	if dbSpan.StartTime().Before(srv.StartTime()) || dbSpan.EndTime().After(srv.EndTime()) {
		t.Error("db span lies outside the server span")
	}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

// TestTracePgxQueries: queries made through pgx (a Go function acting as
// the caller) are spans under the request's server span, through the tracer
// pg.Connect installed.
func TestTracePgxQueries(t *testing.T) {
	rec := traceOn(t)
	var st *stack
	count := functions.Function{Name: "count", Handler: func(w http.ResponseWriter, r *http.Request) error {
		var n int
		err := pg.AsCaller(r.Context(), st.db.User, pg.CallerFromRequest(r, jwt.FromContext(r.Context()).Claims),
			func(tx pgx.Tx) error { return tx.QueryRow(r.Context(), `SELECT count(*) FROM public.items`).Scan(&n) })
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, "ok")
		return err
	}}
	st = newStack(t, count)
	if res, body := st.get(t, "/functions/v1/count", map[string]string{"X-Request-Id": "fn-trace-1"}); res.StatusCode != 200 {
		t.Fatalf("function: %d %s", res.StatusCode, body)
	}
	srv := serverSpan(t, rec, "fn-trace-1")
	var found bool
	for _, c := range children(rec, srv) {
		if attrs(c)["db.query.text"].AsString() == `SELECT count(*) FROM public.items` {
			found = c.Name() == "SELECT" && c.SpanKind() == trace.SpanKindClient
		}
	}
	if !found {
		t.Errorf("no SELECT client span under the function's server span; children: %v", names(children(rec, srv)))
	}
}

// TestTracingOffCostsNothing: with tracing off, pools get no pgx tracer,
// the gateway makes no spans, and the pipeline hook allocates nothing.
func TestTracingOffCostsNothing(t *testing.T) {
	telemetry.SetTracerProvider(nil)
	if telemetry.Tracer() != nil || telemetry.PgxTracer() != nil {
		t.Fatal("tracer present with tracing off")
	}
	s := newStack(t)
	if tr := s.db.User.Config().ConnConfig.Tracer; tr != nil {
		t.Errorf("pool has tracer %T with tracing off", tr)
	}
	if res, _ := s.get(t, "/rest/v1/items", nil); res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	ctx := context.Background()
	steps := []string{"BEGIN", "SELECT 1"}
	allocs := testing.AllocsPerRun(100, func() {
		c, end := telemetry.StartPipeline(ctx, nil, steps, func(s string) string { return s })
		end(nil)
		if c != ctx {
			t.Fatal("context changed")
		}
	})
	if allocs != 0 {
		t.Errorf("StartPipeline with tracing off: %v allocations", allocs)
	}
}

// TestServiceErrorLogCarriesRequestID: the error line a service logs for a
// request carries the same request_id as the gateway's access log line.
func TestServiceErrorLogCarriesRequestID(t *testing.T) {
	fail := functions.Function{Name: "fail", Handler: func(w http.ResponseWriter, r *http.Request) error {
		return errors.New("ledger out of balance")
	}}
	s := newStack(t, fail)
	res, _ := s.get(t, "/functions/v1/fail", map[string]string{"X-Request-Id": "svc-log-7"})
	if res.StatusCode != 500 || res.Header.Get("X-Request-Id") != "svc-log-7" {
		t.Fatalf("status %d, X-Request-Id %q", res.StatusCode, res.Header.Get("X-Request-Id"))
	}
	access := s.logs.waitLine(t, "svc-log-7", "request")
	svc := s.logs.waitLine(t, "svc-log-7", "function failed")
	if access["status"] != float64(500) || svc["level"] != "ERROR" || svc["err"] != "ledger out of balance" {
		t.Errorf("access line %v, service line %v", access, svc)
	}
	// Without an incoming id the gateway makes one; the service line has it too.
	res, _ = s.get(t, "/functions/v1/fail", nil)
	id := res.Header.Get("X-Request-Id")
	s.logs.waitLine(t, id, "request")
	s.logs.waitLine(t, id, "function failed")
}

// TestClientGoneDuringQuery: a client that hangs up while REST waits on
// PostgreSQL is logged and counted as 499, never as a 5xx.
func TestClientGoneDuringQuery(t *testing.T) {
	s := newStack(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.srv.URL+"/rest/v1/rpc/slow", strings.NewReader("{}"))
	req.Header.Set("apikey", s.keys.AnonKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", "gone-during-query")
	errc := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			_ = res.Body.Close()
		}
		errc <- err
	}()
	// Hang up once the statement runs in PostgreSQL.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var n int
		if err := s.db.Admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%slow%' AND state = 'active' AND pid <> pg_backend_pid()`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slow statement never started")
		}
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("client: %v", err)
	}
	line := s.logs.waitLine(t, "gone-during-query", "request")
	if line["status"] != float64(499) || line["level"] != "INFO" {
		t.Errorf("access line %v, want status 499 at INFO", line)
	}
	body := s.metrics(t)
	if !strings.Contains(body, `basalt_http_requests_total{method="POST",service="rest",status="499"} 1`+"\n") {
		t.Errorf("no 499 counted:\n%s", grep(body, "basalt_http_requests_total"))
	}
	if strings.Contains(body, `status="5`) {
		t.Errorf("a 5xx was counted:\n%s", grep(body, `status="5`))
	}
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestPoolMetrics: the pools' statistics appear on /metrics under their
// names, read when scraped.
func TestPoolMetrics(t *testing.T) {
	s := newStack(t)
	ctx := context.Background()
	tiny, err := pg.Connect(ctx, s.db.AdminURL+"&pool_max_conns=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tiny.Close)
	if err := s.reg.Register(telemetry.NewPoolCollector(map[string]*pgxpool.Pool{"user": s.db.User, "tiny": tiny})); err != nil {
		t.Fatal(err)
	}
	before := metricValues(t, s.metrics(t))
	if res, _ := s.get(t, "/rest/v1/items", nil); res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}

	// Hold tiny's only connection: a second acquire waits for it (an empty
	// acquire), a third gives up (a canceled acquire).
	held, err := tiny.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	during := metricValues(t, s.metrics(t))
	got := make(chan error, 1)
	go func() {
		c, err := tiny.Acquire(ctx)
		if err == nil {
			c.Release()
		}
		got <- err
	}()
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	if _, err := tiny.Acquire(short); err == nil {
		t.Fatal("acquire beyond the pool size succeeded")
	}
	cancel()
	time.Sleep(100 * time.Millisecond)
	held.Release()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	after := metricValues(t, s.metrics(t))

	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{`basalt_db_pool_max_connections{pool="tiny"}`, after[`basalt_db_pool_max_connections{pool="tiny"}`], 1},
		{`basalt_db_pool_max_connections{pool="user"}`, after[`basalt_db_pool_max_connections{pool="user"}`], pg.DefaultMaxConns},
		{"tiny acquired while held", during[`basalt_db_pool_acquired_connections{pool="tiny"}`], 1},
		{"tiny idle while held", during[`basalt_db_pool_idle_connections{pool="tiny"}`], 0},
		{"tiny total", after[`basalt_db_pool_connections{pool="tiny"}`], 1},
		{"tiny idle after", after[`basalt_db_pool_idle_connections{pool="tiny"}`], 1},
		{"tiny acquires", after[`basalt_db_pool_acquires_total{pool="tiny"}`] - before[`basalt_db_pool_acquires_total{pool="tiny"}`], 2},
		{"tiny empty acquires", after[`basalt_db_pool_empty_acquires_total{pool="tiny"}`] - before[`basalt_db_pool_empty_acquires_total{pool="tiny"}`], 1},
		{"tiny canceled acquires", after[`basalt_db_pool_canceled_acquires_total{pool="tiny"}`] - before[`basalt_db_pool_canceled_acquires_total{pool="tiny"}`], 1},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if w := after[`basalt_db_pool_empty_acquire_wait_seconds_total{pool="tiny"}`]; w < 0.1 {
		t.Errorf("tiny empty acquire wait = %vs, want at least the 0.1s the connection was held", w)
	}
	if d := after[`basalt_db_pool_acquires_total{pool="user"}`] - before[`basalt_db_pool_acquires_total{pool="user"}`]; d < 1 {
		t.Errorf("user pool acquires grew by %v over a REST request", d)
	}
}

// metrics scrapes the gateway's /metrics endpoint.
func (s *stack) metrics(t *testing.T) string {
	t.Helper()
	res, body := s.get(t, "/metrics", nil)
	if res.StatusCode != 200 {
		t.Fatalf("metrics: %d", res.StatusCode)
	}
	return body
}

// metricValues maps each sample line's name and labels to its value.
func metricValues(t *testing.T, body string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, l := range strings.Split(body, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		v, err := strconv.ParseFloat(l[i+1:], 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", l, err)
		}
		out[l[:i]] = v
	}
	return out
}
