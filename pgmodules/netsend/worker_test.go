package netsend_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/pgmodules/netsend"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// startWorker runs a worker until the test ends.
func startWorker(t *testing.T, db *pgxpool.Pool, cfg netsend.Config) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		netsend.New(cfg, db, nil).Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

type response struct {
	Status   *int
	Content  *string
	TimedOut *bool
	Error    *string
}

// waitResponse waits until the answer to request id is recorded.
func waitResponse(t *testing.T, db *pgxpool.Pool, id int64, within time.Duration) response {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var r response
		err := db.QueryRow(context.Background(),
			`SELECT status_code, content, timed_out, error_msg FROM net._http_response WHERE id = $1`, id).
			Scan(&r.Status, &r.Content, &r.TimedOut, &r.Error)
		if err == nil {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer to request %d within %v (%v)", id, within, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func mustExec(t *testing.T, db *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	if _, err := db.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func mustID(t *testing.T, db *pgxpool.Pool, sql string, args ...any) int64 {
	t.Helper()
	var id int64
	if err := db.QueryRow(context.Background(), sql, args...).Scan(&id); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return id
}

// hook is what a receiver got.
type hook struct {
	Method, Path, Query, ContentType string
	Body                             map[string]any
}

func receiver(t *testing.T) (*httptest.Server, chan hook) {
	got := make(chan hook, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		h := hook{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, ContentType: r.Header.Get("Content-Type")}
		_ = json.Unmarshal(raw, &h.Body)
		got <- h
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Seen", "yes")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func next(t *testing.T, got chan hook) hook {
	t.Helper()
	select {
	case h := <-got:
		return h
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver got nothing")
		return hook{}
	}
}

// A webhook created the Supabase way fires a POST with Supabase's payload
// for INSERT, UPDATE and DELETE, logged in supabase_functions.hooks with
// its request id, answered in net._http_response.
func TestWebhookPayloads(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	srv, got := receiver(t)
	mustExec(t, db.Admin, `CREATE TABLE public.orders (id int PRIMARY KEY, item text)`)
	mustExec(t, db.Admin, fmt.Sprintf(`CREATE TRIGGER orders_hook AFTER INSERT OR UPDATE OR DELETE ON public.orders
		FOR EACH ROW EXECUTE FUNCTION supabase_functions.http_request('%s/hook', 'POST', '{"Content-Type":"application/json","X-Key":"k"}', '{"src":"db"}', '2000')`, srv.URL))
	startWorker(t, db.Admin, netsend.Config{Allowed: loopback})

	mustExec(t, db.Admin, `INSERT INTO public.orders VALUES (1, 'tea')`)
	h := next(t, got)
	want := map[string]any{"type": "INSERT", "table": "orders", "schema": "public",
		"record": map[string]any{"id": float64(1), "item": "tea"}, "old_record": nil}
	if h.Method != "POST" || h.Path != "/hook" || h.Query != "src=db" || h.ContentType != "application/json" || fmt.Sprint(h.Body) != fmt.Sprint(want) {
		t.Fatalf("insert hook = %+v, want body %v", h, want)
	}
	mustExec(t, db.Admin, `UPDATE public.orders SET item = 'coffee' WHERE id = 1`)
	if h := next(t, got); h.Body["type"] != "UPDATE" || fmt.Sprint(h.Body["old_record"]) != "map[id:1 item:tea]" || fmt.Sprint(h.Body["record"]) != "map[id:1 item:coffee]" {
		t.Fatalf("update hook = %+v", h.Body)
	}
	mustExec(t, db.Admin, `DELETE FROM public.orders WHERE id = 1`)
	if h := next(t, got); h.Body["type"] != "DELETE" || h.Body["record"] != nil || fmt.Sprint(h.Body["old_record"]) != "map[id:1 item:coffee]" {
		t.Fatalf("delete hook = %+v", h.Body)
	}

	// The log names the trigger and the request; each request has its answer.
	var ids []int64
	if err := db.Admin.QueryRow(context.Background(), `SELECT array_agg(request_id ORDER BY id) FROM supabase_functions.hooks`).Scan(&ids); err != nil || len(ids) != 3 {
		t.Fatalf("hook log request ids: %v (%v)", ids, err)
	}
	for _, id := range ids {
		waitResponse(t, db.Admin, id, 10*time.Second)
	}
	rows, err := db.Admin.Query(context.Background(), `SELECT h.hook_name, h.hook_table_id = 'public.orders'::regclass::oid::int, r.status_code, r.headers->>'X-Seen'
		FROM supabase_functions.hooks h JOIN net._http_response r ON r.id = h.request_id ORDER BY h.id`)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var name, seen string
		var table bool
		var status int
		if err := rows.Scan(&name, &table, &status, &seen); err != nil {
			t.Fatal(err)
		}
		if name != "orders_hook" || !table || status != 200 || seen != "yes" {
			t.Errorf("hook log row: %s %v %d %s", name, table, status, seen)
		}
		n++
	}
	if n != 3 {
		t.Fatalf("hook log rows with answers: %d, want 3", n)
	}
}

// net.http_get/post/delete: params become the query string, headers and
// bodies are sent, and a bad URL is refused when queued.
func TestHTTPFunctions(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	srv, got := receiver(t)
	startWorker(t, db.Admin, netsend.Config{Allowed: loopback})

	id := mustID(t, db.Admin, `SELECT net.http_get($1, '{"q":"a b&c","n":1}')`, srv.URL+"/get?x=1")
	if h := next(t, got); h.Method != "GET" || h.Query != "x=1&n=1&q=a%20b%26c" {
		t.Fatalf("get = %+v", h)
	}
	if r := waitResponse(t, db.Admin, id, 10*time.Second); r.Status == nil || *r.Status != 200 || *r.Content != `{"ok":true}` {
		t.Fatalf("get answer = %+v", r)
	}
	mustID(t, db.Admin, `SELECT net.http_post($1, '{"hello":"world"}')`, srv.URL+"/post")
	if h := next(t, got); h.Method != "POST" || h.ContentType != "application/json" || h.Body["hello"] != "world" {
		t.Fatalf("post = %+v", h)
	}
	mustID(t, db.Admin, `SELECT net.http_delete($1, body := '{"gone":true}')`, srv.URL+"/del")
	if h := next(t, got); h.Method != "DELETE" || h.Body["gone"] != true {
		t.Fatalf("delete = %+v", h)
	}
	for _, bad := range []string{"ftp://example.com/", "example.com", "http://"} {
		if _, err := db.Admin.Exec(context.Background(), `SELECT net.http_get($1)`, bad); err == nil || !strings.Contains(err.Error(), "22023") {
			t.Errorf("http_get(%q): %v, want 22023", bad, err)
		}
	}
}

// A receiver that hangs or answers 500 is recorded as such, never delays
// the INSERT that queued the request, and does not hold up other receivers.
func TestSlowAndFailingReceivers(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hanging.Close)
	t.Cleanup(func() { close(release) })
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	t.Cleanup(failing.Close)
	good, got := receiver(t)

	mustExec(t, db.Admin, `CREATE TABLE public.events (id serial PRIMARY KEY, kind text)`)
	mustExec(t, db.Admin, fmt.Sprintf(`CREATE TRIGGER to_hanging AFTER INSERT ON public.events FOR EACH ROW WHEN (NEW.kind = 'hang')
		EXECUTE FUNCTION supabase_functions.http_request('%s', 'POST', null, null, '1500')`, hanging.URL))
	mustExec(t, db.Admin, fmt.Sprintf(`CREATE TRIGGER to_failing AFTER INSERT ON public.events FOR EACH ROW WHEN (NEW.kind = 'fail')
		EXECUTE FUNCTION supabase_functions.http_request('%s', 'POST')`, failing.URL))
	mustExec(t, db.Admin, fmt.Sprintf(`CREATE TRIGGER to_good AFTER INSERT ON public.events FOR EACH ROW WHEN (NEW.kind = 'good')
		EXECUTE FUNCTION supabase_functions.http_request('%s', 'POST')`, good.URL))
	// Four slots, one per host: ten hanging requests hold one slot.
	startWorker(t, db.Admin, netsend.Config{Allowed: loopback, Concurrency: 4, HostConcurrency: 1})

	start := time.Now()
	mustExec(t, db.Admin, `INSERT INTO public.events (kind) SELECT 'hang' FROM generate_series(1, 10)`)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("the INSERT that queued ten hanging requests took %v", d)
	}
	mustExec(t, db.Admin, `INSERT INTO public.events (kind) VALUES ('fail'), ('good')`)
	// The good receiver is served while the hanging one still hangs (its
	// first request times out after 1.5 s, the last after 15 s).
	select {
	case <-got:
		if d := time.Since(start); d > 1200*time.Millisecond {
			t.Fatalf("the good receiver waited %v behind the hanging one", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the good receiver was never called")
	}
	failID := mustID(t, db.Admin, `SELECT request_id FROM supabase_functions.hooks WHERE hook_name = 'to_failing'`)
	if r := waitResponse(t, db.Admin, failID, 5*time.Second); r.Status == nil || *r.Status != 500 || !strings.Contains(*r.Content, "boom") || *r.TimedOut {
		t.Fatalf("failing receiver's answer = %+v", r)
	}
	hangID := mustID(t, db.Admin, `SELECT min(request_id) FROM supabase_functions.hooks WHERE hook_name = 'to_hanging'`)
	r := waitResponse(t, db.Admin, hangID, 10*time.Second)
	if r.TimedOut == nil || !*r.TimedOut || r.Status != nil || r.Error == nil || *r.Error != "Timeout of 1500 ms reached" {
		t.Fatalf("hanging receiver's answer = %+v", r)
	}
}

// Two workers on one database: each request is sent once.
func TestTwoWorkersSendOnce(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Query().Get("n")]++
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	for i := 0; i < 2; i++ {
		startWorker(t, db.Admin, netsend.Config{Allowed: loopback, Concurrency: 8, HostConcurrency: 8})
	}
	const n = 300
	mustExec(t, db.Admin, `SELECT net.http_get($1, jsonb_build_object('n', i)) FROM generate_series(1, $2) AS i`, srv.URL, n)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var answered int
		if err := db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM net._http_response`).Scan(&answered); err != nil {
			t.Fatal(err)
		}
		if answered == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d answered", answered, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(hits) != n {
		t.Fatalf("%d distinct requests received, want %d", len(hits), n)
	}
	for k, c := range hits {
		if c != 1 {
			t.Errorf("request n=%s received %d times", k, c)
		}
	}
	var left int
	if err := db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM net.http_request_queue`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("requests left queued: %d (%v)", left, err)
	}
}

// Loopback, private and link-local addresses are refused unless allowed,
// also behind a name, with the reason in net._http_response.
func TestSSRFRefused(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	srv, got := receiver(t)
	startWorker(t, db.Admin, netsend.Config{})
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for _, u := range []string{srv.URL + "/direct", "http://localhost:" + port + "/by-name"} {
		id := mustID(t, db.Admin, `SELECT net.http_get($1)`, u)
		r := waitResponse(t, db.Admin, id, 10*time.Second)
		if r.Status != nil || r.Error == nil || !strings.Contains(*r.Error, "loopback address (allow it with BASALT_NET_ALLOWED_CIDRS)") {
			t.Errorf("%s: answer %+v, want a loopback refusal", u, r)
		}
	}
	select {
	case h := <-got:
		t.Fatalf("a refused request reached the receiver: %+v", h)
	default:
	}
}

// The worker is woken by NOTIFY; a request queued without one (triggers
// off) is still found by polling.
func TestNotifyAndPolling(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	srv, got := receiver(t)
	startWorker(t, db.Admin, netsend.Config{Allowed: loopback, Poll: time.Hour})
	// Wait until the worker listens, so the notification is not missed.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN basalt_net'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker never listened")
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	mustExec(t, db.Admin, `SELECT net.http_get($1)`, srv.URL+"/notified")
	if h := next(t, got); h.Path != "/notified" || time.Since(start) > 2*time.Second {
		t.Fatalf("notified request: %+v after %v", h, time.Since(start))
	}

	db2 := pgtest.NewDB(t)
	startWorker(t, db2.Admin, netsend.Config{Allowed: loopback, Poll: 50 * time.Millisecond})
	tx, err := db2.Admin.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(context.Background(), `SET LOCAL session_replication_role = replica`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(context.Background(), `SELECT net.http_get($1)`, srv.URL+"/polled"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if h := next(t, got); h.Path != "/polled" {
		t.Fatalf("polled request: %+v", h)
	}
}

// Answers older than the TTL are deleted.
func TestTTL(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	mustExec(t, db.Admin, `INSERT INTO net._http_response (id, status_code, created) VALUES (1, 200, now() - interval '2 hours'), (2, 200, now())`)
	startWorker(t, db.Admin, netsend.Config{TTL: time.Hour})
	deadline := time.Now().Add(10 * time.Second)
	for {
		var ids []int64
		if err := db.Admin.QueryRow(context.Background(), `SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM net._http_response`).Scan(&ids); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(ids) == "[2]" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("answers left: %v, want [2]", ids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A request still in flight when its node stops is handed back to the
// queue after the grace period, to be sent again.
func TestStopHandsBack(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	arrived := make(chan struct{}, 1)
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	t.Cleanup(hanging.Close)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		netsend.New(netsend.Config{Allowed: loopback, StopGrace: 200 * time.Millisecond}, db.Admin, nil).Run(ctx)
	}()
	id := mustID(t, db.Admin, `SELECT net.http_get($1, timeout_milliseconds := 60000)`, hanging.URL)
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the request never arrived")
	}
	start := time.Now()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its grace period")
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 5*time.Second {
		t.Fatalf("Run returned %v after it was told to stop, want after the 200 ms grace", d)
	}
	var claimed *time.Time
	if err := db.Admin.QueryRow(context.Background(), `SELECT claimed_until FROM net.http_request_queue WHERE id = $1`, id).Scan(&claimed); err != nil || claimed != nil {
		t.Fatalf("request after stop: claimed_until %v (%v), want back in the queue unclaimed", claimed, err)
	}
	var answers int
	if err := db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM net._http_response WHERE id = $1`, id).Scan(&answers); err != nil || answers != 0 {
		t.Fatalf("answers recorded for a handed-back request: %d (%v)", answers, err)
	}
}
