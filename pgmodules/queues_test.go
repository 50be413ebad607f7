package pgmodules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m, pgtest.WithCron()) }

type message struct {
	ID      int64
	ReadCt  int
	Enq     time.Time
	LastRd  *time.Time
	VT      time.Time
	Message json.RawMessage
	Headers json.RawMessage
}

func readMessages(t *testing.T, db pg.DB, sql string, args ...any) []message {
	t.Helper()
	rows, err := db.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (message, error) {
		var m message
		err := r.Scan(&m.ID, &m.ReadCt, &m.Enq, &m.LastRd, &m.VT, &m.Message, &m.Headers)
		return m, err
	})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func exec(t *testing.T, db pg.DB, sql string, args ...any) {
	t.Helper()
	if _, err := db.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func scalar[T any](t *testing.T, db pg.DB, sql string, args ...any) T {
	t.Helper()
	var v T
	if err := db.QueryRow(context.Background(), sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// The message lifecycle with pgmq's semantics: send (with headers and a
// delay), read under a visibility timeout, set_vt, archive, pop, delete,
// purge, metrics, list and drop.
func TestQueueLifecycle(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t).Admin
	exec(t, db, `SELECT pgmq.create('Jobs')`) // names are lower-cased, as pgmq does
	exec(t, db, `SELECT pgmq.create('jobs')`) // and creating twice is a no-op
	if got := scalar[string](t, db, `SELECT string_agg(queue_name || ':' || is_unlogged, ',') FROM pgmq.list_queues()`); got != "jobs:false" {
		t.Fatalf("list_queues = %s", got)
	}

	first := scalar[int64](t, db, `SELECT * FROM pgmq.send('jobs', '{"n":1}')`)
	second := scalar[int64](t, db, `SELECT * FROM pgmq.send('jobs', '{"n":2}', '{"trace":"x"}'::jsonb)`)
	later := scalar[int64](t, db, `SELECT * FROM pgmq.send('jobs', '{"n":3}', 3600)`)
	if !(first < second && second < later) {
		t.Fatalf("ids %d %d %d not increasing", first, second, later)
	}

	got := readMessages(t, db, `SELECT * FROM pgmq.read('jobs', 30, 10)`)
	if len(got) != 2 || got[0].ID != first && got[1].ID != first {
		t.Fatalf("read = %+v, want the two visible messages", got)
	}
	for _, m := range got {
		if m.ReadCt != 1 || m.LastRd == nil || m.VT.Sub(time.Now()) < 25*time.Second {
			t.Errorf("read message %+v: want read_ct 1, last_read_at set, vt 30 s ahead", m)
		}
		if m.ID == second && string(m.Headers) != `{"trace": "x"}` {
			t.Errorf("headers = %s", m.Headers)
		}
	}
	// Inside the visibility timeout nothing is visible; the delayed one neither.
	if again := readMessages(t, db, `SELECT * FROM pgmq.read('jobs', 30, 10)`); len(again) != 0 {
		t.Fatalf("read inside vt = %+v", again)
	}
	// set_vt makes a message visible again at once.
	if m := readMessages(t, db, `SELECT * FROM pgmq.set_vt('jobs', $1::bigint, 0)`, first); len(m) != 1 {
		t.Fatalf("set_vt = %+v", m)
	}
	again := readMessages(t, db, `SELECT * FROM pgmq.read('jobs', 30, 10)`)
	if len(again) != 1 || again[0].ID != first || again[0].ReadCt != 2 {
		t.Fatalf("read after set_vt = %+v", again)
	}

	// Archive moves it once; the second archive finds nothing.
	if !scalar[bool](t, db, `SELECT pgmq.archive('jobs', $1::bigint)`, first) {
		t.Fatal("archive returned false")
	}
	if scalar[bool](t, db, `SELECT pgmq.archive('jobs', $1::bigint)`, first) {
		t.Fatal("second archive returned true")
	}
	if n := scalar[int64](t, db, `SELECT count(*) FROM pgmq.a_jobs WHERE msg_id = $1 AND archived_at IS NOT NULL AND read_ct = 2`, first); n != 1 {
		t.Fatalf("archived rows = %d", n)
	}
	// Delete likewise.
	if !scalar[bool](t, db, `SELECT pgmq.delete('jobs', $1::bigint)`, second) || scalar[bool](t, db, `SELECT pgmq.delete('jobs', $1::bigint)`, second) {
		t.Fatal("delete: want true then false")
	}

	// Batches: send_batch, archive/delete by array return only the ids they moved.
	ids := scalar[[]int64](t, db, `SELECT array_agg(id) FROM pgmq.send_batch('jobs', ARRAY['{"b":1}', '{"b":2}', '{"b":3}']::jsonb[]) AS id`)
	if len(ids) != 3 {
		t.Fatalf("send_batch ids = %v", ids)
	}
	if got := scalar[[]int64](t, db, `SELECT coalesce(array_agg(x ORDER BY x), '{}') FROM pgmq.archive('jobs', ARRAY[$1, 999999]::bigint[]) AS x`, ids[0]); len(got) != 1 || got[0] != ids[0] {
		t.Fatalf("archive batch = %v", got)
	}
	if got := scalar[[]int64](t, db, `SELECT coalesce(array_agg(x ORDER BY x), '{}') FROM pgmq.delete('jobs', ARRAY[$1, 999999]::bigint[]) AS x`, ids[1]); len(got) != 1 || got[0] != ids[1] {
		t.Fatalf("delete batch = %v", got)
	}

	// pop takes the oldest visible message and removes it.
	popped := readMessages(t, db, `SELECT * FROM pgmq.pop('jobs')`)
	if len(popped) != 1 || popped[0].ID != ids[2] {
		t.Fatalf("pop = %+v, want %d", popped, ids[2])
	}
	if n := scalar[int64](t, db, `SELECT count(*) FROM pgmq.q_jobs WHERE msg_id = $1`, ids[2]); n != 0 {
		t.Fatal("popped message still queued")
	}

	// Only the delayed message is left: metrics count it, not as visible.
	var length, visible, total int64
	var oldest *int32
	if err := db.QueryRow(context.Background(), `SELECT queue_length, queue_visible_length, total_messages, oldest_msg_age_sec FROM pgmq.metrics('jobs')`).Scan(&length, &visible, &total, &oldest); err != nil {
		t.Fatal(err)
	}
	if length != 1 || visible != 0 || total != 6 || oldest == nil {
		t.Fatalf("metrics: length %d visible %d total %d oldest %v", length, visible, total, oldest)
	}
	if n := scalar[int64](t, db, `SELECT count(*) FROM pgmq.metrics_all() WHERE queue_name = 'jobs'`); n != 1 {
		t.Fatalf("metrics_all rows for jobs = %d", n)
	}
	if n := scalar[int64](t, db, `SELECT pgmq.purge_queue('jobs')`); n != 1 {
		t.Fatalf("purge_queue = %d", n)
	}
	if !scalar[bool](t, db, `SELECT pgmq.drop_queue('jobs')`) || scalar[bool](t, db, `SELECT pgmq.drop_queue('jobs')`) {
		t.Fatal("drop_queue: want true then false")
	}
	if scalar[bool](t, db, `SELECT to_regclass('pgmq.q_jobs') IS NOT NULL OR to_regclass('pgmq.a_jobs') IS NOT NULL`) {
		t.Fatal("drop_queue left its tables")
	}
}

func TestQueueUnloggedAndPoll(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t).Admin
	exec(t, db, `SELECT pgmq.create_unlogged('fast')`)
	if p := scalar[string](t, db, `SELECT relpersistence::text FROM pg_class WHERE oid = 'pgmq.q_fast'::regclass`); p != "u" {
		t.Fatalf("q_fast persistence %q, want unlogged", p)
	}
	// read_with_poll waits for a message sent while it polls.
	done := make(chan []message, 1)
	go func() {
		done <- readMessages(t, db, `SELECT * FROM pgmq.read_with_poll('fast', 30, 1, 10, 20)`)
	}()
	// Send once the poller is inside its wait (it shows as pg_sleep).
	deadline := time.Now().Add(10 * time.Second)
	for scalar[int64](t, db, `SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%read_with_poll%' AND wait_event = 'PgSleep'`) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the poller never waited")
		}
		time.Sleep(10 * time.Millisecond)
	}
	exec(t, db, `SELECT pgmq.send('fast', '{"late":true}')`)
	select {
	case got := <-done:
		if len(got) != 1 || string(got[0].Message) != `{"late": true}` {
			t.Fatalf("read_with_poll = %+v", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("read_with_poll did not return the message")
	}
	// With nothing to read it returns empty after max_poll_seconds.
	start := time.Now()
	if got := readMessages(t, db, `SELECT * FROM pgmq.read_with_poll('fast', 30, 1, 1, 50)`); len(got) != 0 {
		t.Fatalf("empty poll = %+v", got)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Fatalf("empty poll returned after %v, want about 1 s", d)
	}
}

// Queue names reach dynamic SQL only as checked identifiers.
func TestQueueNamesValidated(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t).Admin
	for _, name := range []string{
		`x; DROP TABLE pgmq.meta; --`, `a"b`, `a b`, `1abc`, ``, `ä`,
		`a_very_long_queue_name_that_goes_past_the_limit_`,
	} {
		_, err := db.Exec(context.Background(), `SELECT pgmq.create($1)`, name)
		if !pg.Is(err, "22023") {
			t.Errorf("create(%q): err %v, want 22023", name, err)
		}
		_, err = db.Exec(context.Background(), `SELECT pgmq.send($1, '{}')`, name)
		if !pg.Is(err, "22023") {
			t.Errorf("send(%q): err %v, want 22023", name, err)
		}
	}
	if n := scalar[int64](t, db, `SELECT count(*) FROM pgmq.meta`); n != 0 {
		t.Fatalf("meta has %d rows after refused names", n)
	}
	// 47 characters is the longest name.
	exec(t, db, `SELECT pgmq.create($1)`, "q2345678901234567890123456789012345678901234567")
	// Sending to a queue that does not exist is an error, not a silent no-op.
	if _, err := db.Exec(context.Background(), `SELECT pgmq.send('missing', '{}')`); !pg.Is(err, "42P01") {
		t.Fatalf("send to missing queue: %v", err)
	}
}

// The roles: service_role reaches every queue; anon and authenticated
// only once granted a queue's tables, through pgmq_public too.
func TestQueueGrants(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	exec(t, db.Admin, `SELECT pgmq.create('tasks')`)
	as := func(role, sql string) error {
		return pg.AsCaller(context.Background(), db.User, pg.Caller{Role: role}, func(tx pgx.Tx) error {
			_, err := tx.Exec(context.Background(), sql)
			return err
		})
	}
	if err := as("service_role", `SELECT pgmq_public.send('tasks', '{"by":"service"}')`); err != nil {
		t.Fatalf("service_role send: %v", err)
	}
	for _, role := range []string{"anon", "authenticated"} {
		if err := as(role, `SELECT pgmq_public.send('tasks', '{}')`); !pg.Is(err, "42501") {
			t.Errorf("%s send before grant: %v, want 42501", role, err)
		}
		if err := as(role, `SELECT * FROM pgmq_public.read('tasks', 30, 1)`); !pg.Is(err, "42501") {
			t.Errorf("%s read before grant: %v, want 42501", role, err)
		}
		if err := as(role, `SELECT pgmq.create('mine')`); !pg.Is(err, "42501") {
			t.Errorf("%s create: %v, want 42501", role, err)
		}
	}
	exec(t, db.Admin, `GRANT SELECT, INSERT, UPDATE, DELETE ON pgmq.q_tasks TO authenticated; GRANT INSERT ON pgmq.a_tasks TO authenticated`)
	err := pg.AsCaller(context.Background(), db.User, pg.Caller{Role: "authenticated"}, func(tx pgx.Tx) error {
		var id int64
		if err := tx.QueryRow(context.Background(), `SELECT * FROM pgmq_public.send('tasks', '{"by":"user"}')`).Scan(&id); err != nil {
			return err
		}
		var archived bool
		if err := tx.QueryRow(context.Background(), `SELECT pgmq_public.archive('tasks', $1)`, id).Scan(&archived); err != nil || !archived {
			return fmt.Errorf("archive: %v %v", archived, err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("authenticated after grant: %v", err)
	}
	if err := as("anon", `SELECT pgmq_public.send('tasks', '{}')`); !pg.Is(err, "42501") {
		t.Errorf("anon after granting authenticated: %v, want 42501", err)
	}
}

// readersRun is the concurrency check: readers take messages under a
// visibility timeout until the queue is drained; each message must reach
// exactly one reader (a second delivery inside the window is a failure)
// and none may be lost.
func readersRun(t testing.TB, pool *pgxpool.Pool, queue string, readers, perReader int) (time.Duration, error) {
	ctx := context.Background()
	total := readers * perReader
	if _, err := pool.Exec(ctx, `SELECT pgmq.create($1)`, queue); err != nil {
		return 0, err
	}
	batch := make([]string, 0, 1000)
	for i := 0; i < total; i++ {
		batch = append(batch, `{"i":`+strconv.Itoa(i)+`}`)
		if len(batch) == cap(batch) || i == total-1 {
			if _, err := pool.Exec(ctx, `SELECT pgmq.send_batch($1, $2::jsonb[])`, queue, batch); err != nil {
				return 0, err
			}
			batch = batch[:0]
		}
	}
	var mu sync.Mutex
	seen := make(map[int64]int, total)
	errs := make(chan error, readers)
	start := time.Now()
	var wg sync.WaitGroup
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				// A long visibility timeout: within this run a message
				// seen twice was delivered twice inside its window.
				rows, err := pool.Query(ctx, `SELECT msg_id FROM pgmq.read($1, 300, 50)`, queue)
				if err != nil {
					errs <- err
					return
				}
				ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
				if err != nil {
					errs <- err
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
				if _, err := pool.Exec(ctx, `SELECT pgmq.delete($1, $2::bigint[])`, queue, ids); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		return elapsed, err
	}
	for id, n := range seen {
		if n != 1 {
			return elapsed, fmt.Errorf("message %d delivered %d times inside its visibility timeout", id, n)
		}
	}
	if len(seen) != total {
		return elapsed, fmt.Errorf("%d of %d messages delivered", len(seen), total)
	}
	var left int64
	if err := pool.QueryRow(ctx, `SELECT queue_length FROM pgmq.metrics($1)`, queue).Scan(&left); err != nil || left != 0 {
		return elapsed, fmt.Errorf("queue length after the run: %d (%v)", left, err)
	}
	return elapsed, nil
}

// 8 readers drain one queue: every message reaches one reader once, none
// is lost. QUEUE_READERS_FULL=1 runs the full 8 × 10,000 (bench/queues
// measures it too); the default is short enough for every test run.
func TestConcurrentReadersDeliverOnce(t *testing.T) {
	db := pgtest.NewDB(t)
	per := 500
	if os.Getenv("QUEUE_READERS_FULL") != "" {
		per = 10000
	}
	elapsed, err := readersRun(t, db.Admin, "readers", 8, per)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("8 readers × %d messages delivered once each in %v", per, elapsed)
}

// Racing archive and delete calls on the same messages: each message is
// removed by exactly one call and archived at most once.
func TestArchiveDeleteExactlyOnce(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t).Admin
	exec(t, db, `SELECT pgmq.create('race')`)
	exec(t, db, `SELECT pgmq.send_batch('race', array_agg('{}'::jsonb)) FROM generate_series(1, 200)`)
	ids := scalar[[]int64](t, db, `SELECT array_agg(msg_id ORDER BY msg_id) FROM pgmq.q_race`)
	var won sync.Map
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, id := range ids {
				sql := `SELECT pgmq.archive('race', $1::bigint)`
				if (id+int64(w))%2 == 0 {
					sql = `SELECT pgmq.delete('race', $1::bigint)`
				}
				var ok bool
				if err := db.QueryRow(context.Background(), sql, id).Scan(&ok); err != nil {
					t.Error(err)
					return
				}
				if ok {
					if _, dup := won.LoadOrStore(id, w); dup {
						t.Errorf("message %d removed twice", id)
					}
				}
			}
		}()
	}
	wg.Wait()
	n := 0
	won.Range(func(any, any) bool { n++; return true })
	if n != len(ids) {
		t.Fatalf("%d of %d messages removed", n, len(ids))
	}
	if left := scalar[int64](t, db, `SELECT count(*) FROM pgmq.q_race`); left != 0 {
		t.Fatalf("%d messages left", left)
	}
	if dup := scalar[int64](t, db, `SELECT count(*) - count(DISTINCT msg_id) FROM pgmq.a_race`); dup != 0 {
		t.Fatalf("%d messages archived twice", dup)
	}
}
