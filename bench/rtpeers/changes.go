package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/basaltdev/basalt/bench"
)

// changesSchema is Basalt's side of the change benchmark: rows owned by
// their creator, readable and insertable by that user only (RLS), in the
// realtime publication.
const changesSchema = `
CREATE TABLE public.bench_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  worker int NOT NULL,
  seq bigint NOT NULL,
  owner uuid NOT NULL DEFAULT auth.uid(),
  body text);
ALTER TABLE public.bench_events ENABLE ROW LEVEL SECURITY;
CREATE POLICY owners_read ON public.bench_events FOR SELECT TO authenticated USING (owner = auth.uid());
CREATE POLICY owners_insert ON public.bench_events FOR INSERT TO authenticated WITH CHECK (owner = auth.uid());
GRANT SELECT, INSERT ON public.bench_events TO authenticated;
ALTER PUBLICATION supabase_realtime ADD TABLE public.bench_events;`

// changesSide is one server's workers: worker w inserts a row (its seq)
// and receives its own rows' events.
type changesSide interface {
	insert(w int, seq int64) error
	// next is the next event worker w's subscriber received.
	next(w int, timeout time.Duration) ([]byte, error)
	close()
}

// runChanges runs the workers for d after warmup: each inserts a row and
// waits until its subscriber has it, and checks that every event is its
// own next row, exactly once.
func runChanges(ctx context.Context, side changesSide, workers int, warmup, d time.Duration, cpu, dbCPU func() time.Duration) (result, error) {
	var res result
	var (
		mu        sync.Mutex
		measuring bool
		count     int64
		lat       []time.Duration
		firstErr  error
		wg        sync.WaitGroup
	)
	stop := time.Now().Add(warmup + d)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := int64(1); time.Now().Before(stop) && ctx.Err() == nil; seq++ {
				t0 := time.Now()
				err := side.insert(w, seq)
				if err == nil {
					err = expectEvent(side, w, seq)
				}
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("worker %d, row %d: %w", w, seq, err)
					}
					mu.Unlock()
					return
				}
				if measuring {
					count++
					lat = append(lat, time.Since(t0))
				}
				mu.Unlock()
			}
			// Nothing more may arrive: a duplicate would show here.
			if ev, err := side.next(w, 300*time.Millisecond); err == nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = fmt.Errorf("worker %d: an event after its last row: %s", w, ev)
				}
				mu.Unlock()
			}
		}()
	}
	time.Sleep(warmup)
	cpu0, db0 := cpu(), time.Duration(0)
	if dbCPU != nil {
		db0 = dbCPU()
	}
	mu.Lock()
	measuring = true
	t0 := time.Now()
	mu.Unlock()
	time.Sleep(time.Until(stop))
	mu.Lock()
	measuring = false
	res.Elapsed = time.Since(t0)
	res.Ops = count
	mu.Unlock()
	cpu1 := cpu()
	if dbCPU != nil {
		res.DBCPU = dbCPU() - db0
	}
	wg.Wait()
	if firstErr != nil {
		return res, firstErr
	}
	if res.Ops == 0 {
		return res, errors.New("no change delivered")
	}
	res.finish(cpu1-cpu0, lat)
	return res, nil
}

// expectEvent waits for worker w's event for row seq: anything else (an
// earlier row again, a later one, another worker's row) fails.
func expectEvent(side changesSide, w int, seq int64) error {
	ev, err := side.next(w, 10*time.Second)
	if err != nil {
		return fmt.Errorf("waiting for its event: %w", err)
	}
	got, err := parseSeq(ev)
	if err != nil {
		return err
	}
	worker, err := parseInt(ev, "worker")
	if err != nil {
		return err
	}
	if got != seq || worker != int64(w) {
		return fmt.Errorf("expected its row %d, got %s (lost, duplicated or another's row)", seq, ev)
	}
	return nil
}

// basaltChanges: REST inserts as each worker's user, a postgres_changes
// subscription per worker (filter worker=eq.N) over realtime-js's vsn
// 2.0.0, joined with the user's access token.
type basaltChanges struct {
	st     *basaltStack
	hc     *http.Client
	tokens []string
	subs   []*websocket.Conn
}

func newBasaltChanges(st *basaltStack, workers int) (*basaltChanges, error) {
	b := &basaltChanges{st: st, hc: bench.HTTPClient(workers)}
	for w := range workers {
		tok, err := userToken(st)
		if err != nil {
			b.close()
			return nil, err
		}
		b.tokens = append(b.tokens, tok)
		c, err := joinChanges(st, "pg-"+strconv.Itoa(w), tok,
			`{"event":"INSERT","schema":"public","table":"bench_events","filter":"worker=eq.`+strconv.Itoa(w)+`"}`)
		if err != nil {
			b.close()
			return nil, err
		}
		b.subs = append(b.subs, c)
	}
	return b, nil
}

func (b *basaltChanges) insert(w int, seq int64) error { return b.insertInto("bench_events", w, seq) }

// insertInto posts a row to table as worker w's user, as supabase-js's
// insert() does (return=minimal).
func (b *basaltChanges) insertInto(table string, w int, seq int64) error {
	body := `{"worker":` + strconv.Itoa(w) + `,"seq":` + strconv.FormatInt(seq, 10) + `,"body":"x"}`
	req, err := http.NewRequest("POST", b.st.url+"/rest/v1/"+table, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("apikey", b.st.keys.AnonKey)
	req.Header.Set("Authorization", "Bearer "+b.tokens[w])
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Prefer", "return=minimal")
	res, err := b.hc.Do(req)
	if err != nil {
		return err
	}
	out, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		return fmt.Errorf("insert: %d %s", res.StatusCode, out)
	}
	return nil
}

func (b *basaltChanges) next(w int, timeout time.Duration) ([]byte, error) {
	c := b.subs[w]
	for {
		_ = c.SetReadDeadline(time.Now().Add(timeout))
		_, m, err := c.ReadMessage()
		if err != nil {
			return nil, err
		}
		if bytes.Contains(m, []byte(`"postgres_changes",`)) {
			return m, nil
		}
		if bytes.Contains(m, []byte(`"system"`)) && bytes.Contains(m, []byte(`"error"`)) {
			return nil, fmt.Errorf("system error: %s", m)
		}
	}
}

func (b *basaltChanges) close() {
	for _, c := range b.subs {
		_ = c.Close()
	}
}

// newUUID is a random version 4 UUID.
func newUUID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:])
}

// pbChanges: records created through PocketBase's API as each worker's
// user, an SSE subscription per worker to events/* with the filter
// worker=N, authenticated as that user.
type pbChanges struct {
	pb     *pocketBase
	tokens []string
	ids    []string
	subs   []*pbSubscriber
}

var pbUsers int

func newPBChanges(pb *pocketBase, workers int) (*pbChanges, error) {
	p := &pbChanges{pb: pb}
	for w := range workers {
		pbUsers++
		tok, id, err := pb.newUser(fmt.Sprintf("user%d@bench.test", pbUsers))
		if err != nil {
			p.close()
			return nil, err
		}
		s, err := pb.subscribe(tok, "worker="+strconv.Itoa(w))
		if err != nil {
			p.close()
			return nil, err
		}
		p.tokens, p.ids, p.subs = append(p.tokens, tok), append(p.ids, id), append(p.subs, s)
	}
	return p, nil
}

func (p *pbChanges) insert(w int, seq int64) error {
	return p.pb.call("POST", "/api/collections/events/records", p.tokens[w],
		map[string]any{"worker": w, "seq": seq, "owner": p.ids[w], "body": "x"}, nil)
}

func (p *pbChanges) next(w int, timeout time.Duration) ([]byte, error) {
	s := p.subs[w]
	select {
	case ev := <-s.events:
		return ev, nil
	case err := <-s.errs:
		return nil, err
	case <-time.After(timeout):
		return nil, errTimeout
	}
}

var errTimeout = errors.New("timed out")

func (p *pbChanges) close() {
	for _, s := range p.subs {
		s.close()
	}
}

func changesPart(ctx context.Context, opts bench.Options, rounds int, stacks []*basaltStack, pb *pocketBase) ([]caseRows, error) {
	type side struct {
		name string
		open func() (changesSide, error)
		cpu  func() time.Duration
		db   func() time.Duration
	}
	workers := opts.Concurrency
	var sides []side
	for _, bs := range stacks {
		sides = append(sides, side{name: bs.name, cpu: bs.cpu, db: bs.dbCPU,
			open: func() (changesSide, error) { return newBasaltChanges(bs, workers) }})
	}
	if pb != nil {
		sides = append(sides[:1], append([]side{{name: pocketbase.String(), cpu: pb.cpu,
			open: func() (changesSide, error) { return newPBChanges(pb, workers) }}}, sides[1:]...)...)
	}
	rows := newCaseRows(fmt.Sprintf("INSERT → its filtered subscriber under a read rule, %d workers", workers), sides, func(s side) string { return s.name })
	for r := range rounds {
		for k := range sides {
			i := (k + r) % len(sides)
			s := sides[i]
			cs, err := s.open()
			if err != nil {
				return nil, fmt.Errorf("changes, %s: %w", s.name, err)
			}
			var prof *dbProfile
			if *pgstatFlag && i == 0 {
				if prof, err = stacks[0].startDBProfile(ctx); err != nil {
					return nil, err
				}
			}
			res, err := runChanges(ctx, cs, workers, opts.Warmup, opts.Duration, s.cpu, s.db)
			cs.close()
			if prof != nil && err == nil {
				if err := prof.print(ctx, os.Stderr, "change (warm-up included)", res.Ops); err != nil {
					return nil, err
				}
			}
			if err != nil {
				return nil, fmt.Errorf("changes, %s: %w", s.name, err)
			}
			progress("changes, %s: %.0f changes/s, server CPU %s + database %s per change, p99 %s",
				s.name, res.PerSec, res.ServerCPU, res.DBCPU, res.P99)
			rows.Sides[i].Runs = append(rows.Sides[i].Runs, res)
		}
	}
	return []caseRows{rows}, nil
}
