package main

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/gorilla/websocket"

	"github.com/basaltdev/basalt/bench"
)

// feedSchema is the many-subscribers case: a feed every signed-in user
// may read and post to.
const feedSchema = `
CREATE TABLE public.bench_feed (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  worker int NOT NULL,
  seq bigint NOT NULL,
  author uuid NOT NULL DEFAULT auth.uid(),
  body text);
ALTER TABLE public.bench_feed ENABLE ROW LEVEL SECURITY;
CREATE POLICY signed_in_read ON public.bench_feed FOR SELECT TO authenticated USING (auth.uid() IS NOT NULL);
CREATE POLICY signed_in_post ON public.bench_feed FOR INSERT TO authenticated WITH CHECK (author = auth.uid());
GRANT SELECT, INSERT ON public.bench_feed TO authenticated;
ALTER PUBLICATION supabase_realtime ADD TABLE public.bench_feed;`

// feedSubscribers is how many users, each on a socket of their own,
// receive every row of the feed.
const feedSubscribers = 20

// feedSide is one server's feed: writers post rows, every subscriber
// receives each.
type feedSide interface {
	post(w int, seq int64) error
	// stream is subscriber s's events, and where its failure goes.
	stream(s int) (<-chan []byte, <-chan error)
	close()
}

// runFeed has workers post rows, each waiting until every subscriber has
// its row; every subscriber must receive every worker's rows exactly once,
// in order. One operation is one delivery.
func runFeed(ctx context.Context, side feedSide, workers, subs int, warmup, d time.Duration, cpu, dbCPU func() time.Duration) (result, error) {
	var res result
	var (
		received  = make([]atomic.Int32, workers)
		done      = make([]chan struct{}, workers)
		measuring atomic.Bool
		delivered atomic.Int64
		failure   atomic.Value
		latMu     sync.Mutex
		lat       []time.Duration
		stop      = make(chan struct{})
		readers   sync.WaitGroup
	)
	fail := func(err error) { failure.CompareAndSwap(nil, err) }
	for w := range done {
		done[w] = make(chan struct{}, 1)
	}
	for s := range subs {
		events, errs := side.stream(s)
		readers.Add(1)
		go func() {
			defer readers.Done()
			next := make([]int64, workers)
			for w := range next {
				next[w] = 1
			}
			for {
				select {
				case <-stop:
					return
				case err := <-errs:
					fail(fmt.Errorf("subscriber %d: %w", s, err))
					return
				case ev := <-events:
					w, err1 := parseInt(ev, "worker")
					seq, err2 := parseSeq(ev)
					if err1 != nil || err2 != nil || w < 0 || int(w) >= workers {
						fail(fmt.Errorf("subscriber %d: unexpected event %s", s, ev))
						return
					}
					if seq != next[w] {
						fail(fmt.Errorf("subscriber %d: worker %d's row %d, expected %d (lost, duplicated or reordered)", s, w, seq, next[w]))
						return
					}
					next[w]++
					if measuring.Load() {
						delivered.Add(1)
					}
					if received[w].Add(1) == int32(subs) {
						received[w].Store(0)
						done[w] <- struct{}{}
					}
				}
			}
		}()
	}
	end := time.Now().Add(warmup + d)
	var writers sync.WaitGroup
	for w := range workers {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for seq := int64(1); time.Now().Before(end) && failure.Load() == nil; seq++ {
				t0 := time.Now()
				if err := side.post(w, seq); err != nil {
					fail(fmt.Errorf("worker %d: post: %w", w, err))
					return
				}
				select {
				case <-done[w]:
				case <-time.After(10 * time.Second):
					fail(fmt.Errorf("worker %d: row %d did not reach all %d subscribers within 10 s", w, seq, subs))
					return
				}
				if measuring.Load() {
					latMu.Lock()
					lat = append(lat, time.Since(t0))
					latMu.Unlock()
				}
			}
		}()
	}
	time.Sleep(warmup)
	cpu0, db0 := cpu(), time.Duration(0)
	if dbCPU != nil {
		db0 = dbCPU()
	}
	t0 := time.Now()
	measuring.Store(true)
	time.Sleep(time.Until(end))
	measuring.Store(false)
	res.Elapsed = time.Since(t0)
	cpu1 := cpu()
	if dbCPU != nil {
		res.DBCPU = dbCPU() - db0
	}
	res.Ops = delivered.Load()
	writers.Wait()
	// Nothing more may arrive: a duplicate would show here.
	time.Sleep(300 * time.Millisecond)
	close(stop)
	readers.Wait()
	if f, ok := failure.Load().(error); ok {
		return res, f
	}
	if res.Ops == 0 {
		return res, fmt.Errorf("nothing delivered")
	}
	res.finish(cpu1-cpu0, lat)
	return res, nil
}

// basaltFeed: writers post through REST as their users; subscribers,
// each a user of their own, join one topic with a postgres_changes
// binding on the feed.
type basaltFeed struct {
	ins    *basaltChanges // the writers' REST client and tokens
	subs   []*websocket.Conn
	events []chan []byte
	errs   []chan error
}

func newBasaltFeed(st *basaltStack, workers, subs int) (*basaltFeed, error) {
	f := &basaltFeed{ins: &basaltChanges{st: st, hc: bench.HTTPClient(workers)}}
	for range workers {
		tok, err := userToken(st)
		if err != nil {
			return nil, err
		}
		f.ins.tokens = append(f.ins.tokens, tok)
	}
	for s := range subs {
		tok, err := userToken(st)
		if err != nil {
			f.close()
			return nil, err
		}
		c, err := joinChanges(st, "feed", tok, `{"event":"INSERT","schema":"public","table":"bench_feed"}`)
		if err != nil {
			f.close()
			return nil, fmt.Errorf("subscriber %d: %w", s, err)
		}
		f.subs = append(f.subs, c)
		ev, errs := make(chan []byte, 256), make(chan error, 1)
		f.events, f.errs = append(f.events, ev), append(f.errs, errs)
		go func() {
			for {
				_, m, err := c.ReadMessage()
				if err != nil {
					errs <- err
					return
				}
				if bytes.Contains(m, []byte(`"postgres_changes",`)) {
					ev <- m
				}
			}
		}()
	}
	return f, nil
}

func (f *basaltFeed) post(w int, seq int64) error { return f.ins.insertInto("bench_feed", w, seq) }

func (f *basaltFeed) stream(s int) (<-chan []byte, <-chan error) { return f.events[s], f.errs[s] }

func (f *basaltFeed) close() {
	for _, c := range f.subs {
		_ = c.Close()
	}
}

// userToken signs an access token for a new signed-in user.
func userToken(st *basaltStack) (string, error) {
	return st.keys.Sign(gojwt.MapClaims{"sub": newUUID(), "role": "authenticated", "aud": "authenticated",
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()})
}

// joinChanges opens a socket and joins realtime:<topic> with one
// postgres_changes binding as the token's user, as realtime-js does, and
// waits until the subscription is confirmed.
func joinChanges(st *basaltStack, topic, token, binding string) (*websocket.Conn, error) {
	c, _, err := websocket.DefaultDialer.Dial(st.wsURL(st.keys.AnonKey), nil)
	if err != nil {
		return nil, err
	}
	join := `["1","1","realtime:` + topic + `","phx_join",{"config":{"broadcast":{"ack":false,"self":false},` +
		`"presence":{"key":"","enabled":false},"postgres_changes":[` + binding + `],"private":false},` +
		`"access_token":"` + token + `"}]`
	if err := c.WriteMessage(websocket.TextMessage, []byte(join)); err != nil {
		_ = c.Close()
		return nil, err
	}
	for {
		_ = c.SetReadDeadline(time.Now().Add(15 * time.Second))
		_, m, err := c.ReadMessage()
		if err != nil {
			_ = c.Close()
			return nil, fmt.Errorf("postgres_changes subscribe: %w", err)
		}
		if strings.Contains(string(m), "Subscribed to PostgreSQL") {
			_ = c.SetReadDeadline(time.Time{})
			return c, nil
		}
		if strings.Contains(string(m), `"status":"error"`) {
			_ = c.Close()
			return nil, fmt.Errorf("postgres_changes subscribe: %s", m)
		}
	}
}

// pbFeed: writers create records as their users; every subscriber, a
// user of its own, subscribes to the whole collection.
type pbFeed struct {
	pb     *pocketBase
	tokens []string
	ids    []string
	subs   []*pbSubscriber
}

func newPBFeed(pb *pocketBase, workers, subs int) (*pbFeed, error) {
	f := &pbFeed{pb: pb}
	for range workers {
		pbUsers++
		tok, id, err := pb.newUser(fmt.Sprintf("user%d@bench.test", pbUsers))
		if err != nil {
			return nil, err
		}
		f.tokens, f.ids = append(f.tokens, tok), append(f.ids, id)
	}
	for range subs {
		pbUsers++
		tok, _, err := pb.newUser(fmt.Sprintf("user%d@bench.test", pbUsers))
		if err != nil {
			f.close()
			return nil, err
		}
		s, err := pb.subscribeTopic(tok, "feed/*")
		if err != nil {
			f.close()
			return nil, err
		}
		f.subs = append(f.subs, s)
	}
	return f, nil
}

func (f *pbFeed) post(w int, seq int64) error {
	return f.pb.call("POST", "/api/collections/feed/records", f.tokens[w],
		map[string]any{"worker": w, "seq": seq, "author": f.ids[w], "body": "x"}, nil)
}

func (f *pbFeed) stream(s int) (<-chan []byte, <-chan error) { return f.subs[s].events, f.subs[s].errs }

func (f *pbFeed) close() {
	for _, s := range f.subs {
		s.close()
	}
}

// feedPart runs the many-subscribers case on both servers.
func feedPart(ctx context.Context, opts bench.Options, rounds int, stacks []*basaltStack, pb *pocketBase) (caseRows, error) {
	workers := max(1, opts.Concurrency/2)
	subs := feedSubscribers
	if opts.Smoke {
		subs = 4
	}
	type side struct {
		name string
		open func() (feedSide, error)
		cpu  func() time.Duration
		db   func() time.Duration
	}
	var sides []side
	for _, bs := range stacks {
		sides = append(sides, side{name: bs.name, cpu: bs.cpu, db: bs.dbCPU,
			open: func() (feedSide, error) { return newBasaltFeed(bs, workers, subs) }})
	}
	if pb != nil {
		sides = append(sides[:1], append([]side{{name: pocketbase.String(), cpu: pb.cpu,
			open: func() (feedSide, error) { return newPBFeed(pb, workers, subs) }}}, sides[1:]...)...)
	}
	rows := newCaseRows("INSERT → "+strconv.Itoa(subs)+" subscribers (each a signed-in user the read rule lets see it), "+
		strconv.Itoa(workers)+" writers", sides, func(s side) string { return s.name })
	for r := range rounds {
		for k := range sides {
			i := (k + r) % len(sides)
			s := sides[i]
			fs, err := s.open()
			if err != nil {
				return rows, fmt.Errorf("feed, %s: %w", s.name, err)
			}
			res, err := runFeed(ctx, fs, workers, subs, opts.Warmup, opts.Duration, s.cpu, s.db)
			fs.close()
			if err != nil {
				return rows, fmt.Errorf("feed, %s: %w", s.name, err)
			}
			progress("feed, %s: %.0f deliveries/s, server CPU %s + database %s per delivery, p99 %s",
				s.name, res.PerSec, res.ServerCPU, res.DBCPU, res.P99)
			rows.Sides[i].Runs = append(rows.Sides[i].Runs, res)
		}
	}
	return rows, nil
}
