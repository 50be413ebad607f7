// Command queues measures Basalt's queues and webhooks against baselines
// run in the same cluster in the same run:
//
//   - send + read + delete of one message (pgmq.send, pgmq.read under a
//     visibility timeout, pgmq.delete) against a plain INSERT and DELETE of
//     one row of a table: the goal is a ratio of 0.7 or more;
//   - the same against the same three statements written by hand on a
//     plain table, which isolates what the pgmq functions add;
//   - the same with batches of 100 messages (send_batch, read 100, delete
//     by array) against a 100-row INSERT and DELETE;
//   - 8 readers draining a queue of 8 × 10,000 messages (8 × 500 in smoke
//     runs), checked for exactly-once delivery inside the visibility
//     window, against the same rows taken by 8 workers with plain
//     DELETE ... SKIP LOCKED;
//   - webhook delivery: an INSERT on a table with a Database Webhook until
//     the receiver has the POST (p50/p99 are the delivery latency), against
//     the same POST sent directly from Go.
//
// Usage:
//
//	go run ./bench/queues            # 5 s per case, concurrency 16
//	go run ./bench/queues -smoke     # CI: checks the paths only
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/pgmodules/netsend"
)

func main() {
	opts := bench.ParseFlags(16)
	if err := run(opts); err != nil {
		fmt.Fprintln(os.Stderr, "bench/queues:", err)
		os.Exit(1)
	}
}

const schema = `
SELECT pgmq.create('bench');
SELECT pgmq.create('bench_batch');
CREATE TABLE bench_plain (id bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY, payload jsonb, enqueued_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE bench_drain (id bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY, payload jsonb);
CREATE TABLE bench_hooked (id bigint PRIMARY KEY, note text);
`

func run(opts bench.Options) error {
	ctx := context.Background()
	admin, _, stop, err := bench.PlatformPools(ctx, "bq", nil, int32(opts.Concurrency+8))
	if err != nil {
		return err
	}
	defer stop()
	if _, err := admin.Exec(ctx, schema); err != nil {
		return err
	}
	msg := `{"kind":"bench","n":1}`
	one := bench.Comparison{
		Name: "send+read+delete",
		Baseline: bench.Run(ctx, "insert+delete", opts, func(ctx context.Context) (int64, error) {
			var id int64
			if err := admin.QueryRow(ctx, `INSERT INTO bench_plain (payload) VALUES ($1) RETURNING id`, msg).Scan(&id); err != nil {
				return 0, err
			}
			_, err := admin.Exec(ctx, `DELETE FROM bench_plain WHERE id = $1`, id)
			return 0, err
		}),
		Candidate: bench.Run(ctx, "pgmq", opts, func(ctx context.Context) (int64, error) {
			if _, err := admin.Exec(ctx, `SELECT pgmq.send('bench', $1::jsonb)`, msg); err != nil {
				return 0, err
			}
			id, err := readOne(ctx, admin)
			if err != nil {
				return 0, err
			}
			_, err = admin.Exec(ctx, `SELECT pgmq.delete('bench', $1::bigint)`, id)
			return 0, err
		}),
	}

	// The same three steps written by hand on a plain table (no dynamic
	// SQL, no function calls): what the pgmq functions themselves cost.
	byHand := bench.Comparison{
		Name: "send+read+delete",
		Baseline: bench.Run(ctx, "same SQL by hand", opts, func(ctx context.Context) (int64, error) {
			if _, err := admin.Exec(ctx, `INSERT INTO bench_plain (payload) VALUES ($1)`, msg); err != nil {
				return 0, err
			}
			var id int64
			for range 1000 {
				err := admin.QueryRow(ctx, `WITH p AS (SELECT id FROM bench_plain WHERE enqueued_at <= clock_timestamp() ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
					UPDATE bench_plain b SET enqueued_at = clock_timestamp() + interval '30 seconds' FROM p WHERE b.id = p.id RETURNING b.id`).Scan(&id)
				if err == nil {
					break
				}
				if !errors.Is(err, pgx.ErrNoRows) {
					return 0, err
				}
			}
			_, err := admin.Exec(ctx, `DELETE FROM bench_plain WHERE id = $1`, id)
			return 0, err
		}),
		Candidate: one.Candidate,
	}

	batch := make([]string, 100)
	for i := range batch {
		batch[i] = msg
	}
	hundred := bench.Comparison{
		Name: "100 at once",
		Baseline: bench.Run(ctx, "insert+delete", opts, func(ctx context.Context) (int64, error) {
			rows, err := admin.Query(ctx, `INSERT INTO bench_plain (payload) SELECT unnest($1::jsonb[]) RETURNING id`, batch)
			if err != nil {
				return 0, err
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				return 0, err
			}
			_, err = admin.Exec(ctx, `DELETE FROM bench_plain WHERE id = ANY($1)`, ids)
			return 0, err
		}),
		Candidate: bench.Run(ctx, "pgmq", opts, func(ctx context.Context) (int64, error) {
			if _, err := admin.Exec(ctx, `SELECT pgmq.send_batch('bench_batch', $1::jsonb[])`, batch); err != nil {
				return 0, err
			}
			rows, err := admin.Query(ctx, `SELECT msg_id FROM pgmq.read('bench_batch', 30, 100)`)
			if err != nil {
				return 0, err
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				return 0, err
			}
			_, err = admin.Exec(ctx, `SELECT pgmq.delete('bench_batch', $1::bigint[])`, ids)
			return 0, err
		}),
	}

	per := 10000
	if opts.Smoke {
		per = 500
	}
	drain, err := drainComparison(ctx, admin, 8, per)
	if err != nil {
		return err
	}

	hooks, err := webhookComparison(ctx, admin, opts)
	if err != nil {
		return err
	}
	return bench.Report(os.Stdout, opts, one, byHand, hundred, drain, hooks)
}

// readOne reads one visible message; with many workers a message may be
// taken by another one first, so it reads until it gets one.
func readOne(ctx context.Context, db *pgxpool.Pool) (int64, error) {
	for range 1000 {
		var id int64
		err := db.QueryRow(ctx, `SELECT msg_id FROM pgmq.read('bench', 30, 1)`).Scan(&id)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return 0, err
		}
	}
	return 0, errors.New("no message to read after 1000 tries")
}

// drainComparison drains readers × per messages with 8 concurrent readers
// taking 50 at a time: pgmq.read + pgmq.delete, checked for exactly-once
// delivery, against DELETE ... SKIP LOCKED on a plain table. Each side is
// one operation: its result is the time to drain the whole queue.
func drainComparison(ctx context.Context, db *pgxpool.Pool, readers, per int) (bench.Comparison, error) {
	total := readers * per
	fill := `SELECT pgmq.send_batch('bench', array_agg('{"n":1}'::jsonb)) FROM generate_series(1, $1)`
	plainFill := `INSERT INTO bench_drain (payload) SELECT '{"n":1}' FROM generate_series(1, $1)`
	if _, err := db.Exec(ctx, fill, total); err != nil {
		return bench.Comparison{}, err
	}
	if _, err := db.Exec(ctx, plainFill, total); err != nil {
		return bench.Comparison{}, err
	}
	drainWith := func(name string, take func(ctx context.Context) ([]int64, error)) (bench.Result, map[int64]int) {
		var mu sync.Mutex
		seen := make(map[int64]int, total)
		var errs atomic.Int64
		start := time.Now()
		var wg sync.WaitGroup
		for range readers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					ids, err := take(ctx)
					if err != nil {
						errs.Add(1)
						return
					}
					if len(ids) == 0 {
						return
					}
					mu.Lock()
					for _, id := range ids {
						seen[id]++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		return bench.NewResult(name+" ("+strconv.Itoa(total)+" msgs)", []time.Duration{elapsed}, errs.Load(), elapsed), seen
	}
	ids := func(rows pgx.Rows, err error) ([]int64, error) {
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, pgx.RowTo[int64])
	}
	base, _ := drainWith("skip locked", func(ctx context.Context) ([]int64, error) {
		return ids(db.Query(ctx, `DELETE FROM bench_drain WHERE id IN (SELECT id FROM bench_drain ORDER BY id LIMIT 50 FOR UPDATE SKIP LOCKED) RETURNING id`))
	})
	cand, seen := drainWith("pgmq", func(ctx context.Context) ([]int64, error) {
		got, err := ids(db.Query(ctx, `SELECT msg_id FROM pgmq.read('bench', 300, 50)`))
		if err != nil || len(got) == 0 {
			return got, err
		}
		_, err = db.Exec(ctx, `SELECT pgmq.delete('bench', $1::bigint[])`, got)
		return got, err
	})
	for id, n := range seen {
		if n != 1 {
			return bench.Comparison{}, fmt.Errorf("message %d delivered %d times inside its visibility timeout", id, n)
		}
	}
	if len(seen) != total {
		return bench.Comparison{}, fmt.Errorf("%d of %d messages delivered", len(seen), total)
	}
	return bench.Comparison{Name: fmt.Sprintf("%d readers drain", readers), Baseline: base, Candidate: cand}, nil
}

// webhookComparison measures an INSERT whose Database Webhook reaches a
// local receiver, from the INSERT until the receiver has it, against the
// same POST sent directly.
func webhookComparison(ctx context.Context, db *pgxpool.Pool, opts bench.Options) (bench.Comparison, error) {
	var mu sync.Mutex
	waiting := map[int64]chan struct{}{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p struct {
			Record struct {
				ID int64 `json:"id"`
			} `json:"record"`
		}
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		if ch, ok := waiting[p.Record.ID]; ok {
			close(ch)
			delete(waiting, p.Record.ID)
		}
		mu.Unlock()
	}))
	defer srv.Close()
	if _, err := db.Exec(ctx, fmt.Sprintf(`CREATE TRIGGER bench_hook AFTER INSERT ON bench_hooked FOR EACH ROW
		EXECUTE FUNCTION supabase_functions.http_request('%s', 'POST', null, null, '5000')`, srv.URL)); err != nil {
		return bench.Comparison{}, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		netsend.New(netsend.Config{
			Allowed:     []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
			Concurrency: opts.Concurrency * 2, HostConcurrency: opts.Concurrency * 2,
		}, db, nil).Run(runCtx)
	}()
	defer func() { cancel(); <-done }()

	var next atomic.Int64
	await := func(ctx context.Context, send func(id int64) error) (int64, error) {
		id := next.Add(1)
		ch := make(chan struct{})
		mu.Lock()
		waiting[id] = ch
		mu.Unlock()
		if err := send(id); err != nil {
			return 0, err
		}
		select {
		case <-ch:
			return 0, nil
		case <-time.After(10 * time.Second):
			return 0, fmt.Errorf("webhook for row %d not received in 10 s", id)
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	client := bench.HTTPClient(opts.Concurrency)
	direct := bench.Run(ctx, "direct POST", opts, func(ctx context.Context) (int64, error) {
		return await(ctx, func(id int64) error {
			body := fmt.Sprintf(`{"type":"INSERT","table":"bench_hooked","schema":"public","record":{"id":%d,"note":"x"},"old_record":null}`, id)
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(body))
			if err != nil {
				return err
			}
			req.Header.Set("Content-Type", "application/json")
			res, err := client.Do(req)
			if err != nil {
				return err
			}
			return res.Body.Close()
		})
	})
	hooked := bench.Run(ctx, "webhook", opts, func(ctx context.Context) (int64, error) {
		return await(ctx, func(id int64) error {
			_, err := db.Exec(ctx, `INSERT INTO bench_hooked (id, note) VALUES ($1, 'x')`, id)
			return err
		})
	})
	return bench.Comparison{Name: "webhook delivery", Baseline: direct, Candidate: hooked}, nil
}
