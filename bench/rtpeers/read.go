package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/basaltdev/basalt/bench"
)

// readRows is how many rows each server's table holds; every read asks
// for one of them by primary key, in turn.
const readRows = 1000

// readSchema is Basalt's side of the single-row read: a table every
// visitor may read, as a Supabase project exposes one (row-level security
// on, a policy letting anon read every row).
var readSchema = `
CREATE TABLE public.bench_items (
  id int PRIMARY KEY,
  title text NOT NULL,
  plays int NOT NULL);
INSERT INTO public.bench_items SELECT g, 'track ' || g, g FROM generate_series(1, ` + strconv.Itoa(readRows) + `) g;
ALTER TABLE public.bench_items ENABLE ROW LEVEL SECURITY;
CREATE POLICY everyone_reads ON public.bench_items FOR SELECT TO anon USING (true);
GRANT SELECT ON public.bench_items TO anon;
ANALYZE public.bench_items;`

// reader reads row i (1-based) and checks that the answer is that row.
type reader func(hc *http.Client, i int) error

// readSide is one server of the single-row read.
type readSide struct {
	name  string
	stack *basaltStack // Basalt's: its database's CPU is also shown by process kind
	read  reader
	cpu   func() time.Duration
	db    func() time.Duration // nil: no database process of its own
}

// getRow sends a GET and checks the status and that the body names the
// row: want is a fragment only that row's answer has.
func getRow(hc *http.Client, req *http.Request, want []byte) error {
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK || !bytes.Contains(body, want) {
		return fmt.Errorf("GET %s: %d %s (want %s)", req.URL, res.StatusCode, body, want)
	}
	return nil
}

// basaltRead reads through /rest/v1 as supabase-js does with the anon key:
// .from('bench_items').select().eq('id', n).
func basaltRead(st *basaltStack) reader {
	return func(hc *http.Client, i int) error {
		req, err := http.NewRequest("GET", st.url+"/rest/v1/bench_items?select=*&id=eq."+strconv.Itoa(i), nil)
		if err != nil {
			return err
		}
		req.Header.Set("apikey", st.keys.AnonKey)
		req.Header.Set("Authorization", "Bearer "+st.keys.AnonKey)
		req.Header.Set("Accept", "application/json")
		return getRow(hc, req, []byte(`"title":"track `+strconv.Itoa(i)+`"`))
	}
}

// pbRead reads a record of a collection with a public view rule, as the
// JS SDK's collection('items').getOne(id) does.
func pbRead(pb *pocketBase, ids []string) reader {
	return func(hc *http.Client, i int) error {
		req, err := http.NewRequest("GET", pb.url+"/api/collections/items/records/"+ids[i-1], nil)
		if err != nil {
			return err
		}
		return getRow(hc, req, []byte(`"title":"track `+strconv.Itoa(i)+`"`))
	}
}

// seedPocketBase creates the items collection (anyone may list and view)
// and its records, and returns their ids in row order.
func seedPocketBase(pb *pocketBase) ([]string, error) {
	admin, _, err := pb.signIn("_superusers", "admin@bench.test")
	if err != nil {
		return nil, err
	}
	coll := map[string]any{
		"name": "items", "type": "base", "listRule": "", "viewRule": "",
		"fields": []map[string]any{
			{"name": "title", "type": "text"},
			{"name": "plays", "type": "number"},
		},
	}
	if err := pb.call("POST", "/api/collections", admin, coll, nil); err != nil {
		return nil, fmt.Errorf("pocketbase items collection: %w", err)
	}
	ids := make([]string, readRows)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < readRows; i += 8 {
				var out struct {
					ID string `json:"id"`
				}
				if err := pb.call("POST", "/api/collections/items/records", admin,
					map[string]any{"title": "track " + strconv.Itoa(i+1), "plays": i + 1}, &out); err != nil {
					errs <- err
					return
				}
				ids[i] = out.ID
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, fmt.Errorf("pocketbase items: %w", err)
	}
	return ids, nil
}

// startPREST runs pREST on Basalt's database as its owner (pREST has no
// roles of its own): GET /{database}/{schema}/{table}?column=value. Its
// pool keeps idle connections (its default, none, opens a connection per
// request), as Basalt's does.
func startPREST(ctx context.Context, bin, tmp string, st *basaltStack) (*proc, error) {
	port, err := bench.FreePort()
	if err != nil {
		return nil, err
	}
	// The cluster's unix socket and port, from the URL Basalt uses.
	u, err := url.Parse(st.cluster.SocketURL("postgres", "postgres"))
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(),
		"PREST_HTTP_HOST=127.0.0.1", "PREST_HTTP_PORT="+strconv.Itoa(port),
		"PREST_PG_HOST="+u.Query().Get("host"), "PREST_PG_PORT="+u.Query().Get("port"),
		"PREST_PG_USER=postgres", "PREST_PG_MAXIDLECONN=10", "PREST_PG_MAXOPENCONN=10", "PREST_PG_PASS=", "PREST_PG_DATABASE=postgres", "PREST_SSL_MODE=disable",
		"PREST_DEBUG=false", "PREST_JWT_DEFAULT=false", "PREST_CACHE_ENABLED=false", "PREST_CONF="+tmp+"/prest.toml")
	return startProc(ctx, "prest", tmp, tmp, port, env, "/_health", bin)
}

// prestRead reads through pREST's table endpoint with an equality filter.
func prestRead(p *proc) reader {
	return func(hc *http.Client, i int) error {
		req, err := http.NewRequest("GET", p.url+"/postgres/public/bench_items?id="+strconv.Itoa(i), nil)
		if err != nil {
			return err
		}
		return getRow(hc, req, []byte(`"title": "track `+strconv.Itoa(i)+`"`))
	}
}

// runRead runs workers reading rows in turn for d after warmup.
func runRead(ctx context.Context, read reader, workers int, warmup, d time.Duration, cpu, dbCPU func() time.Duration) (result, error) {
	var res result
	hc := bench.HTTPClient(workers)
	defer hc.CloseIdleConnections()
	var (
		mu        sync.Mutex
		measuring bool
		lat       []time.Duration
		firstErr  error
		wg        sync.WaitGroup
	)
	stop := time.Now().Add(warmup + d)
	for w := range workers {
		wg.Go(func() {
			var mine []time.Duration
			var counting bool
			for n := w; time.Now().Before(stop) && ctx.Err() == nil; n += workers {
				t0 := time.Now()
				if err := read(hc, 1+n%readRows); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				if n&63 < workers { // a cheap look at the flag every few reads
					mu.Lock()
					counting = measuring
					mu.Unlock()
				}
				if counting {
					mine = append(mine, time.Since(t0))
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	time.Sleep(warmup)
	mu.Lock()
	measuring = true
	mu.Unlock()
	cpu0, db0, t0 := cpu(), time.Duration(0), time.Now()
	if dbCPU != nil {
		db0 = dbCPU()
	}
	time.Sleep(time.Until(stop))
	cpu1, el := cpu(), time.Since(t0)
	if dbCPU != nil {
		res.DBCPU = dbCPU() - db0
	}
	wg.Wait()
	if firstErr != nil {
		return res, firstErr
	}
	// Reads are counted from their latencies: those that ended while
	// measuring (the few that began just before the window and the few
	// after it even out).
	res.Ops, res.Elapsed = int64(len(lat)), el
	if res.Ops == 0 {
		return res, errors.New("no read completed")
	}
	res.finish(cpu1-cpu0, lat)
	return res, nil
}

// readPart is the single-row read by primary key: Basalt's /rest/v1
// against PocketBase's records API and pREST, in the same run.
func readPart(ctx context.Context, opts bench.Options, rounds int, stacks []*basaltStack, pb *pocketBase, prestBin, tmp string) ([]caseRows, error) {
	var sides []readSide
	for _, bs := range stacks {
		sides = append(sides, readSide{name: bs.name, stack: bs, read: basaltRead(bs), cpu: bs.cpu, db: bs.dbCPU})
	}
	if pb != nil {
		ids, err := seedPocketBase(pb)
		if err != nil {
			return nil, err
		}
		sides = append(sides, readSide{name: pocketbase.String(), read: pbRead(pb, ids), cpu: pb.cpu})
	}
	if prestBin != "" {
		p, err := startPREST(ctx, prestBin, tmp, stacks[0])
		if err != nil {
			return nil, err
		}
		defer p.stop()
		sides = append(sides, readSide{name: prestPeer, read: prestRead(p), cpu: p.cpu, db: stacks[0].dbCPU})
	}
	workers := opts.Concurrency
	rows := newCaseRows(fmt.Sprintf("one row by primary key, %d clients", workers), sides, func(s readSide) string { return s.name })
	for r := range rounds {
		for k := range sides {
			i := (k + r) % len(sides)
			s := sides[i]
			var prof *dbProfile
			var err error
			if *pgstatFlag && s.db != nil {
				if prof, err = stacks[0].startDBProfile(ctx); err != nil {
					return nil, err
				}
			}
			var kinds map[string]time.Duration
			if s.stack != nil {
				kinds = s.stack.cpuByKind()
			}
			res, err := runRead(ctx, s.read, workers, opts.Warmup, opts.Duration, s.cpu, s.db)
			if err != nil {
				return nil, fmt.Errorf("read, %s: %w", s.name, err)
			}
			if s.stack != nil {
				// Warm-up included: the shares are what to read.
				var parts []string
				for k, d := range s.stack.cpuByKind() {
					if d -= kinds[k]; d > 0 {
						parts = append(parts, fmt.Sprintf("%s %.0f%%", k, 100*float64(d)/float64(res.DBCPU*time.Duration(res.Ops))/((opts.Warmup+opts.Duration).Seconds()/res.Elapsed.Seconds())))
					}
				}
				sort.Strings(parts)
				progress("read, %s: database CPU by process kind: %s", s.name, strings.Join(parts, ", "))
			}
			if prof != nil {
				if err := prof.print(ctx, os.Stderr, s.name+" read (warm-up included)", res.Ops); err != nil {
					return nil, err
				}
			}
			progress("read, %s: %.0f reads/s, server CPU %s + database %s per read, p99 %s",
				s.name, res.PerSec, res.ServerCPU, res.DBCPU, res.P99)
			rows.Sides[i].Runs = append(rows.Sides[i].Runs, res)
		}
	}
	return []caseRows{rows}, nil
}

// prestPeer names pREST and the commit it is built from.
var prestPeer = "pREST " + prestVersion

// prestVersion is the pREST release the benchmark builds.
const prestVersion = "v2.4.2"

// findPREST returns pREST's binary under root/.tools/bin. pREST's module
// is not served by the module proxy, so it is built from a clone of its
// repository at prestVersion when build is set.
func findPREST(ctx context.Context, root string, build bool) (string, error) {
	bin := root + "/.tools/bin/prestd"
	stamp := bin + ".version"
	if v, err := os.ReadFile(stamp); err == nil && string(bytes.TrimSpace(v)) == prestVersion {
		if _, err := os.Stat(bin); err == nil {
			return bin, nil
		}
	}
	if !build {
		return "", fmt.Errorf("pREST %s: %w", prestVersion, errNoPeer)
	}
	progress("building pREST %s from source", prestVersion)
	src, err := os.MkdirTemp("", "prest-src")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(src)
	steps := [][]string{
		{"git", "clone", "--quiet", "--depth", "1", "--branch", prestVersion, "https://github.com/prest/prest", src},
		{"go", "build", "-trimpath", "-o", bin, "./cmd/prestd"},
	}
	for _, s := range steps {
		cmd := exec.CommandContext(ctx, s[0], s[1:]...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), buildEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("%v: %w\n%s", s, err, last(string(out)))
		}
	}
	if err := os.WriteFile(stamp, []byte(prestVersion+"\n"), 0o644); err != nil {
		return "", err
	}
	return bin, nil
}
