// Command realtime measures the realtime service against baselines run in
// the same process:
//
//   - idle sockets: how many idle clients, each joined to a channel and
//     heartbeating every 25 s as realtime-js does, one node holds, and the
//     server's memory per socket (Go heap and stacks, and resident set).
//     The clients run in child processes (this program again), spread over
//     loopback source addresses. The baseline is a bare gorilla/websocket
//     server holding as many sockets and answering every frame. The count
//     is capped by the process's open file limit.
//   - broadcast fan-out: a client sends one broadcast (a vsn 2.0.0 binary
//     frame, what channel.send() emits) and waits until each subscriber of
//     its topic has it. The baseline is a bare gorilla/websocket hub that
//     forwards every frame to the other sockets of its topic, with no
//     protocol, no gateway and no limits.
//   - postgres_changes: an INSERT committed and delivered to a subscriber
//     through the replication slot, the filter and RLS checks. The baseline
//     is the same INSERT with a trigger that NOTIFYs a LISTENing connection,
//     PostgreSQL's own delivery.
//
// Each worker owns its own topic (or table row stream), so -c is the
// number of concurrent senders.
//
//	go run ./bench/realtime            # 5 s per case, 8 senders, 50,000 idle sockets held 30 s
//	go run ./bench/realtime -smoke     # CI: well under a second per case, 200 idle sockets
//	go run ./bench/realtime -idle 10000 -idle-hold 60s
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/realtime"
)

// subscribers is how many sockets receive each broadcast.
const subscribers = 8

func main() {
	if job := os.Getenv(idleClientEnv); job != "" {
		if err := runIdleClient(job); err != nil {
			fmt.Fprintln(os.Stderr, "idle client:", err)
			os.Exit(1)
		}
		return
	}
	idleSockets := flag.Int("idle", 50000, "idle sockets to hold (capped by the open file limit; 200 with -smoke)")
	idleHold := flag.Duration("idle-hold", 30*time.Second, "how long the idle sockets are held, heartbeating every 25 s")
	opts := bench.ParseFlags(8)
	ic := idleCase{sockets: *idleSockets, hold: *idleHold, heartbeat: 25 * time.Second}
	if opts.Smoke {
		ic = idleCase{sockets: 200, hold: time.Second, heartbeat: 250 * time.Millisecond}
	}
	if err := run(opts, ic); err != nil {
		fmt.Fprintln(os.Stderr, "bench/realtime:", err)
		os.Exit(1)
	}
}

// idleCase is the idle-sockets case's size.
type idleCase struct {
	sockets         int
	hold, heartbeat time.Duration
}

func run(opts bench.Options, ic idleCase) error {
	ctx := context.Background()
	// Commits flush WAL at once, as on a production server: with the
	// throwaway default (synchronous_commit off) a change waits for the WAL
	// writer (200 ms) before the slot can send it.
	admin, user, stop, err := bench.PlatformPools(ctx, "brt", map[string]string{"synchronous_commit": "on"}, 32)
	if err != nil {
		return err
	}
	defer stop()
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		return err
	}
	svc, err := realtime.New(realtime.Config{PostgresChanges: true, MaxEventsPerSecond: 1 << 30,
		MaxConcurrentUsers: 1 << 20, MaxJoinsPerSecond: 1 << 20}, admin, user, keys,
		realtime.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		return err
	}
	defer svc.Close()
	gw, err := gateway.New(gateway.Config{}, gateway.Services{Realtime: svc}, keys, nil)
	if err != nil {
		return err
	}
	srv := httptest.NewServer(gw)
	defer srv.Close()
	hub := httptest.NewServer(newHub())
	defer hub.Close()

	wsURL := "ws" + strings.TrimPrefix(srv.URL, "http") + "/realtime/v1/websocket?vsn=2.0.0&apikey=" + keys.AnonKey
	hubURL := "ws" + strings.TrimPrefix(hub.URL, "http") + "/ws"

	// Idle sockets first, while the process holds little else.
	limit, nofile := idleCap()
	n := min(ic.sockets, limit)
	if n < ic.sockets {
		fmt.Printf("idle sockets: %d asked, %d held: the open file limit is %d\n", ic.sockets, n, nofile)
	}
	bare := httptest.NewServer(&bareServer{})
	idleBase, err := idle(ctx, "bare gorilla", "ws"+strings.TrimPrefix(bare.URL, "http"), n, false, ic.hold, ic.heartbeat, 2)
	bare.Close()
	if err != nil {
		return err
	}
	idleCand, err := idle(ctx, "realtime", wsURL, n, true, ic.hold, ic.heartbeat, 20)
	if err != nil {
		return err
	}
	printIdle(os.Stdout, opts.JSON, nofile, idleBase, idleCand)
	for _, r := range []idleReport{idleBase, idleCand} {
		if r.HeartbeatsLost*100 > r.Heartbeats {
			return fmt.Errorf("%s: %d of %d heartbeats unanswered", r.Name, r.HeartbeatsLost, r.Heartbeats)
		}
	}
	base, err := fanout(ctx, opts, "gorilla hub", hubURL, rawSession)
	if err != nil {
		return err
	}
	cand, err := fanout(ctx, opts, "realtime broadcast", wsURL, realtimeSession)
	if err != nil {
		return err
	}
	pgBase, pgCand, err := changes(ctx, opts, admin, wsURL, keys)
	if err != nil {
		return err
	}
	return bench.Report(os.Stdout, opts,
		bench.Comparison{Name: fmt.Sprintf("broadcast to %d subscribers", subscribers), Baseline: base, Candidate: cand},
		bench.Comparison{Name: "INSERT delivered as postgres_changes (vs LISTEN/NOTIFY)", Baseline: pgBase, Candidate: pgCand})
}

// session opens a sender and its subscribers on one topic and returns the
// frame that sender writes for one broadcast.
type session func(url, topic string) (sender *websocket.Conn, subs []*websocket.Conn, frame []byte, err error)

// fanout measures one broadcast reaching every subscriber of a topic.
func fanout(ctx context.Context, opts bench.Options, name, url string, open session) (bench.Result, error) {
	type worker struct {
		sender *websocket.Conn
		subs   []*websocket.Conn
		frame  []byte
	}
	workers := make(chan *worker, opts.Concurrency)
	var all []*websocket.Conn
	defer func() {
		for _, c := range all {
			_ = c.Close()
		}
	}()
	for i := range opts.Concurrency {
		s, subs, f, err := open(url, fmt.Sprintf("room-%d", i))
		if err != nil {
			return bench.Result{}, fmt.Errorf("%s: %w", name, err)
		}
		all = append(append(all, s), subs...)
		workers <- &worker{sender: s, subs: subs, frame: f}
	}
	op := func(ctx context.Context) (int64, error) {
		w := <-workers
		defer func() { workers <- w }()
		if err := w.sender.WriteMessage(websocket.BinaryMessage, w.frame); err != nil {
			return 0, err
		}
		var n int64
		for _, s := range w.subs {
			_ = s.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, data, err := s.ReadMessage()
			if err != nil {
				return n, err
			}
			n += int64(len(data))
		}
		return n, nil
	}
	return bench.Run(ctx, name, opts, op), nil
}

// payload is a cursor position, a typical small broadcast.
const payload = `{"x":120,"y":48,"user":"7d1c"}`

// realtimeSession joins a channel on every socket, as supabase-js does.
func realtimeSession(url, topic string) (*websocket.Conn, []*websocket.Conn, []byte, error) {
	t := "realtime:" + topic
	join := func() (*websocket.Conn, error) {
		c, _, err := websocket.DefaultDialer.Dial(url, nil)
		if err != nil {
			return nil, err
		}
		msg := fmt.Sprintf(`["1","1",%q,"phx_join",{"config":{"broadcast":{"ack":false,"self":false},"presence":{"key":"","enabled":false},"postgres_changes":[],"private":false}}]`, t)
		if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
			return nil, err
		}
		_, reply, err := c.ReadMessage()
		if err != nil || !strings.Contains(string(reply), `"status":"ok"`) {
			return nil, fmt.Errorf("join: %s %v", reply, err)
		}
		return c, nil
	}
	sender, err := join()
	if err != nil {
		return nil, nil, nil, err
	}
	var subs []*websocket.Conn
	for range subscribers {
		c, err := join()
		if err != nil {
			return nil, nil, nil, err
		}
		subs = append(subs, c)
	}
	frame := []byte{3, 1, 0, byte(len(t)), 6, 0, 1}
	frame = append(frame, "1"...)
	frame = append(frame, t...)
	frame = append(frame, "cursor"...)
	frame = append(frame, payload...)
	return sender, subs, frame, nil
}

// rawSession connects plain sockets to the baseline hub.
func rawSession(url, topic string) (*websocket.Conn, []*websocket.Conn, []byte, error) {
	var conns []*websocket.Conn
	for range subscribers + 1 {
		c, _, err := websocket.DefaultDialer.Dial(url+"?topic="+topic, nil)
		if err != nil {
			return nil, nil, nil, err
		}
		conns = append(conns, c)
	}
	time.Sleep(10 * time.Millisecond) // registered on the hub
	return conns[0], conns[1:], []byte(payload), nil
}

// hub is the baseline: each frame goes to every other socket of the topic.
type hub struct {
	up     websocket.Upgrader
	mu     sync.Mutex
	topics map[string][]*hubConn
}

type hubConn struct {
	mu sync.Mutex
	ws *websocket.Conn
}

func newHub() *hub { return &hub{topics: map[string][]*hubConn{}} }

func (h *hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ws, err := h.up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	topic := r.URL.Query().Get("topic")
	me := &hubConn{ws: ws}
	h.mu.Lock()
	h.topics[topic] = append(h.topics[topic], me)
	h.mu.Unlock()
	for {
		typ, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		h.mu.Lock()
		peers := h.topics[topic]
		h.mu.Unlock()
		for _, p := range peers {
			if p == me {
				continue
			}
			p.mu.Lock()
			_ = p.ws.WriteMessage(typ, data)
			p.mu.Unlock()
		}
	}
}

// changes measures an INSERT reaching a postgres_changes subscriber,
// against the same INSERT reaching a LISTENing connection by NOTIFY.
func changes(ctx context.Context, opts bench.Options, admin *pgxpool.Pool, wsURL string, keys *jwt.Keys) (bench.Result, bench.Result, error) {
	var none bench.Result
	_, err := admin.Exec(ctx, `
		CREATE TABLE public.bench_events (id bigint PRIMARY KEY, worker int NOT NULL, body text);
		ALTER TABLE public.bench_events ENABLE ROW LEVEL SECURITY;
		CREATE POLICY "everyone reads" ON public.bench_events FOR SELECT TO anon, authenticated USING (true);
		GRANT SELECT ON public.bench_events TO anon, authenticated;
		ALTER PUBLICATION supabase_realtime ADD TABLE public.bench_events;
		CREATE TABLE public.bench_notify (id bigint PRIMARY KEY, worker int NOT NULL, body text);
		CREATE FUNCTION public.bench_notify() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN PERFORM pg_notify('bench_' || NEW.worker, NEW.id::text); RETURN NULL; END $$;
		CREATE TRIGGER bench_notify AFTER INSERT ON public.bench_notify FOR EACH ROW EXECUTE FUNCTION public.bench_notify();`)
	if err != nil {
		return none, none, err
	}
	var seq atomic.Int64

	// Baseline: one LISTEN connection per worker.
	type listener struct {
		worker int
		conn   *pgxpool.Conn
	}
	listeners := make(chan *listener, opts.Concurrency)
	for i := range opts.Concurrency {
		c, err := admin.Acquire(ctx)
		if err != nil {
			return none, none, err
		}
		defer c.Release()
		if _, err := c.Exec(ctx, fmt.Sprintf("LISTEN bench_%d", i)); err != nil {
			return none, none, err
		}
		listeners <- &listener{worker: i, conn: c}
	}
	base := bench.Run(ctx, "INSERT + NOTIFY", opts, func(ctx context.Context) (int64, error) {
		l := <-listeners
		defer func() { listeners <- l }()
		if _, err := admin.Exec(ctx, `INSERT INTO public.bench_notify VALUES ($1, $2, 'x')`, seq.Add(1), l.worker); err != nil {
			return 0, err
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, err := l.conn.Conn().WaitForNotification(wctx)
		return 0, err
	})

	// Candidate: one subscriber per worker, filtered to its rows.
	type sub struct {
		worker int
		ws     *websocket.Conn
	}
	subs := make(chan *sub, opts.Concurrency)
	for i := range opts.Concurrency {
		c, _, err := websocket.DefaultDialer.Dial(wsURL, nil)
		if err != nil {
			return none, none, err
		}
		defer c.Close()
		join := fmt.Sprintf(`["1","1","realtime:pg-%d","phx_join",{"config":{"postgres_changes":[{"event":"INSERT","schema":"public","table":"bench_events","filter":"worker=eq.%d"}]}}]`, i, i)
		if err := c.WriteMessage(websocket.TextMessage, []byte(join)); err != nil {
			return none, none, err
		}
		for {
			_ = c.SetReadDeadline(time.Now().Add(15 * time.Second))
			_, m, err := c.ReadMessage()
			if err != nil {
				return none, none, fmt.Errorf("postgres_changes subscribe: %w", err)
			}
			if strings.Contains(string(m), "Subscribed to PostgreSQL") {
				break
			}
			if strings.Contains(string(m), `"status":"error"`) {
				return none, none, fmt.Errorf("postgres_changes subscribe: %s", m)
			}
		}
		subs <- &sub{worker: i, ws: c}
	}
	cand := bench.Run(ctx, "INSERT + postgres_changes", opts, func(ctx context.Context) (int64, error) {
		s := <-subs
		defer func() { subs <- s }()
		if _, err := admin.Exec(ctx, `INSERT INTO public.bench_events VALUES ($1, $2, 'x')`, seq.Add(1), s.worker); err != nil {
			return 0, err
		}
		_ = s.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, m, err := s.ws.ReadMessage()
		return int64(len(m)), err
	})
	return base, cand, nil
}
