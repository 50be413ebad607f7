// Command storage benchmarks /storage/v1 against its own backend. Each case
// moves the same bytes three ways in the same run, at the same concurrency:
//
//   - API: through the gateway and the storage service over loopback HTTP,
//     as an authenticated user under RLS policies (JWT, policy test, MD5,
//     backend write, the storage.objects row; for reads the bucket, the RLS
//     read, the headers and the bytes);
//   - bare HTTP: a handler that only moves the bytes between the request
//     and the backend over the same loopback HTTP client (the transport's
//     own cost, with no API work);
//   - direct: the backend's Put and Get called in process, with the keys
//     the service would use.
//
// The ratio is API over direct (1.0 = the API costs nothing on top of the
// disk); API over bare HTTP isolates what the service itself adds. Every
// figure is the median over several rounds; the three sides take turns
// going first and the page cache is flushed before each timed phase, so no
// side pays for another's writeback. A last case streams one very large
// object up and down while sampling the heap, to show memory stays flat.
//
//	go run ./bench/storage            # full run
//	go run ./bench/storage -smoke     # CI: a few seconds
//	BENCH_SMOKE=1 go run ./bench/storage
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/storage"
	"github.com/basaltdev/basalt/storage/fsbackend"
)

// benchCase is one size class: count objects of size bytes moved by
// concurrency workers.
type benchCase struct {
	name        string
	size        int64
	count       int
	concurrency int
}

func main() {
	smoke := flag.Bool("smoke", os.Getenv("BENCH_SMOKE") == "1", "short run for CI")
	huge := flag.Int64("stream-mb", 500, "size of the memory-check object in MB")
	rounds := flag.Int("rounds", 3, "rounds per case; figures are medians")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	only := flag.String("case", "", "run only the cases whose name contains this (e.g. \"10 KB\"; \"-\" for none)")
	flag.Parse()
	cases := []benchCase{
		{"1 MB objects", 1 << 20, 128, 16},
		{"50 MB objects", 50 << 20, 8, 4},
		{"10 KB objects", 10 << 10, 2000, 16},
	}
	if *smoke {
		cases = []benchCase{{"1 MB objects", 1 << 20, 16, 4}, {"10 KB objects", 10 << 10, 100, 4}}
		*huge, *rounds = 32, 1
	}
	if *only != "" {
		cases = slices.DeleteFunc(cases, func(c benchCase) bool { return !strings.Contains(c.name, *only) })
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(cases, *rounds, *huge<<20); err != nil {
		log.Fatal(err)
	}
}

// env is the service under test, the bare HTTP server and the backend.
type env struct {
	api     string // gateway base URL
	bare    string // bare HTTP server URL
	anonKey string
	token   string // an authenticated user's JWT
	backend *fsbackend.Backend
	admin   *pgxpool.Pool
	client  *http.Client
}

// benchPolicies let every authenticated user read and write the bench
// bucket, so API requests run real policy checks.
const benchPolicies = `
CREATE POLICY bench_select ON storage.objects FOR SELECT TO authenticated USING (bucket_id = 'bench');
CREATE POLICY bench_insert ON storage.objects FOR INSERT TO authenticated WITH CHECK (bucket_id = 'bench');`

func run(cases []benchCase, rounds int, hugeSize int64) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "stbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	// Pools sized for the 16 concurrent clients, as a server would be.
	admin, user, stop, err := bench.PlatformPools(ctx, "stpg", nil, 32)
	if err != nil {
		return err
	}
	defer stop()
	if _, err := admin.Exec(ctx, benchPolicies); err != nil {
		return fmt.Errorf("policies: %w", err)
	}
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		return err
	}
	token, err := keys.Sign(gojwt.MapClaims{"sub": uuid.NewString(), "role": "authenticated",
		"aud": "authenticated", "exp": time.Now().Add(24 * time.Hour).Unix()})
	if err != nil {
		return err
	}
	backend, err := fsbackend.New(filepath.Join(dir, "objects"))
	if err != nil {
		return err
	}
	svc, err := storage.New(storage.Config{FileSizeLimit: 1 << 40}, admin, user, keys, backend,
		storage.WithLogger(nil))
	if err != nil {
		return err
	}
	// The service behind the gateway, as cmd/basalt serves it.
	gw, err := gateway.New(gateway.Config{}, gateway.Services{Storage: svc}, keys, nil)
	if err != nil {
		return err
	}
	apiSrv := httptest.NewServer(gw)
	defer apiSrv.Close()
	bareSrv := httptest.NewServer(bareHandler(backend))
	defer bareSrv.Close()
	e := &env{api: apiSrv.URL + "/storage/v1", bare: bareSrv.URL, anonKey: keys.AnonKey, token: token,
		backend: backend, admin: admin,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	if _, err := admin.Exec(ctx, `INSERT INTO storage.buckets (id, name) VALUES ('bench', 'bench')`); err != nil {
		return fmt.Errorf("create bucket: %w", err)
	}

	fmt.Printf("median of %d rounds; ratio = API / direct, API/bare = API / bare HTTP\n", rounds)
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tconc\tAPI\tbare HTTP\tdirect\tratio\tAPI/bare\tAPI CPU/op (process + db)\t")
	for _, c := range cases {
		up, down, cpu, err := e.runCase(ctx, c, rounds)
		if err != nil {
			return err
		}
		unit := "MB/s"
		if c.size < 1<<20 {
			unit = "req/s"
		}
		for _, row := range []struct {
			op  string
			r   [3]float64
			cpu [2]float64
		}{{"upload", up, cpu.up}, {"download", down, cpu.down}} {
			fmt.Fprintf(tw, "%s %s\t%d\t%.1f %s\t%.1f %s\t%.1f %s\t%.2f\t%.2f\t%.0f + %.0f µs\t\n", row.op, c.name, c.concurrency,
				row.r[0], unit, row.r[1], unit, row.r[2], unit, row.r[0]/row.r[2], row.r[0]/row.r[1], row.cpu[0], row.cpu[1])
		}
		_ = tw.Flush()
	}
	return e.streamCheck(hugeSize)
}

// bareHandler moves bytes between HTTP and the backend and does nothing
// else: PUT /key stores the body, GET /key?size=n serves n bytes with the
// same copy the service uses.
func bareHandler(b *fsbackend.Backend) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.Path[1:]
		switch r.Method {
		case http.MethodPut:
			if err := b.Put(r.Context(), key, r.Body, r.ContentLength, ""); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusOK)
		case http.MethodGet:
			size, _ := strconv.ParseInt(r.URL.Query().Get("size"), 10, 64)
			body, err := b.Get(r.Context(), key, 0, size)
			if err != nil {
				http.Error(w, err.Error(), http.StatusNotFound)
				return
			}
			defer body.Close()
			w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
			_, _ = io.Copy(w, body)
		}
	})
}

// side is one way of moving the bytes of a case.
type side struct {
	up, down func(i int) error
}

// runCase runs rounds of uploads then downloads on the three sides and
// returns the median throughput of each (API, bare, direct), in the case's
// unit.
func (e *env) runCase(ctx context.Context, c benchCase, rounds int) (up, down [3]float64, cpu caseCPU, err error) {
	data := make([]byte, c.size)
	_, _ = rand.Read(data)
	scale := func(d time.Duration) float64 { return float64(c.size*int64(c.count)) / d.Seconds() / 1e6 }
	if c.size < 1<<20 {
		scale = func(d time.Duration) float64 { return float64(c.count) / d.Seconds() }
	}
	var ups, downs [3][]float64
	var upCPU, downCPU [2][]float64 // API side: this process, database (µs per op)
	for round := range rounds {
		prefix := fmt.Sprintf("%s/r%d", c.name, round)
		// The backend sides write the key shape the service writes
		// (bucket/name/version), so the same directories are created.
		bareKeys, directKeys := versionKeys("bare/"+prefix, c.count), versionKeys("direct/"+prefix, c.count)
		sides := [3]side{
			{
				up: func(i int) error {
					return e.call("POST", e.api+fmt.Sprintf("/object/bench/%s/%d", prefix, i), data, nil)
				},
				down: func(i int) error {
					return e.call("GET", e.api+fmt.Sprintf("/object/bench/%s/%d", prefix, i), nil, nil)
				},
			},
			{
				up: func(i int) error { return e.call("PUT", e.bare+"/"+bareKeys[i], data, nil) },
				down: func(i int) error {
					return e.call("GET", fmt.Sprintf("%s/%s?size=%d", e.bare, bareKeys[i], c.size), nil, nil)
				},
			},
			{
				up: func(i int) error {
					return e.backend.Put(ctx, directKeys[i], bytes.NewReader(data), c.size, "")
				},
				down: func(i int) error {
					r, err := e.backend.Get(ctx, directKeys[i], 0, c.size)
					if err != nil {
						return err
					}
					defer r.Close()
					_, err = io.Copy(io.Discard, r)
					return err
				},
			},
		}
		// The sides take turns going first.
		order := [3]int{round % 3, (round + 1) % 3, (round + 2) % 3}
		for _, s := range order {
			syscall.Sync()
			span := bench.StartCPUSpan()
			d, err := parallel(c, sides[s].up)
			if err != nil {
				return up, down, cpu, fmt.Errorf("%s upload (side %d): %w", c.name, s, err)
			}
			ups[s] = append(ups[s], scale(d))
			if s == 0 {
				recordCPU(&upCPU, span, c.count)
			}
		}
		for _, s := range order {
			syscall.Sync()
			span := bench.StartCPUSpan()
			d, err := parallel(c, sides[s].down)
			if err != nil {
				return up, down, cpu, fmt.Errorf("%s download (side %d): %w", c.name, s, err)
			}
			downs[s] = append(downs[s], scale(d))
			if s == 0 {
				recordCPU(&downCPU, span, c.count)
			}
		}
		if err := e.cleanRound(ctx, prefix, bareKeys, directKeys); err != nil {
			return up, down, cpu, err
		}
	}
	for s := range 3 {
		up[s], down[s] = median(ups[s]), median(downs[s])
	}
	for i := range 2 {
		cpu.up[i], cpu.down[i] = median(upCPU[i]), median(downCPU[i])
	}
	return up, down, cpu, nil
}

// caseCPU is the API side's CPU per operation in µs, median over the
// rounds: [0] this process (client, gateway and service), [1] PostgreSQL.
type caseCPU struct{ up, down [2]float64 }

// recordCPU ends span over n operations and appends its per-op figures.
func recordCPU(to *[2][]float64, span bench.CPUSpan, n int) {
	self, db := span.PerOp(n)
	to[0] = append(to[0], float64(self.Nanoseconds())/1e3)
	to[1] = append(to[1], float64(db.Nanoseconds())/1e3)
}

// versionKeys names count backend keys under prefix the way the service
// does: bucket/name/version.
func versionKeys(prefix string, count int) []string {
	keys := make([]string, count)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s/%d/%s", prefix, i, uuid.NewString())
	}
	return keys
}

// cleanRound removes a round's objects and bytes so the disk does not fill
// up over the rounds.
func (e *env) cleanRound(ctx context.Context, prefix string, more ...[]string) error {
	var keys []string
	err := pgx.BeginFunc(ctx, e.admin, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('storage.allow_delete_query', 'true', true)`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `DELETE FROM storage.objects WHERE bucket_id = 'bench' AND name LIKE $1 || '/%'
			RETURNING bucket_id || '/' || name || '/' || version`, prefix)
		if err != nil {
			return err
		}
		keys, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		return fmt.Errorf("clean %s: %w", prefix, err)
	}
	for _, k := range more {
		keys = append(keys, k...)
	}
	return e.backend.Delete(ctx, keys...)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// parallel runs op for 0..count-1 on c.concurrency workers and returns the
// wall time.
func parallel(c benchCase, op func(i int) error) (time.Duration, error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	start := time.Now()
	for range c.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= c.count {
					return
				}
				if err := op(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start), firstErr
}

// call makes one request (raw body, as storage-js sends a Buffer) and
// drains the answer, which must be a 200.
func (e *env) call(method, url string, body []byte, stream io.Reader) error {
	var r io.Reader
	switch {
	case stream != nil:
		r = stream
	case body != nil:
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		return err
	}
	req.Header.Set("apikey", e.anonKey)
	req.Header.Set("Authorization", "Bearer "+e.token)
	if r != nil {
		req.Header.Set("Content-Type", "application/octet-stream")
	}
	res, err := e.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		return fmt.Errorf("%s %s: %d %s", method, url, res.StatusCode, b)
	}
	_, err = io.Copy(io.Discard, res.Body)
	return err
}

// zeroReader yields n bytes without allocating them.
type zeroReader struct{ n int64 }

func (z *zeroReader) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n)
	clear(p[:k])
	z.n -= k
	return int(k), nil
}

// streamCheck uploads and downloads one object of size bytes (chunked, so
// nothing knows the length up front) while sampling the Go heap every 20 ms.
// The client and server share this process, so the peak covers both.
func (e *env) streamCheck(size int64) error {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	peak.Store(base)
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if m.HeapInuse > peak.Load() {
			peak.Store(m.HeapInuse)
		}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	start := time.Now()
	err := e.call("POST", e.api+"/object/bench/huge.bin", nil, io.MultiReader(&zeroReader{n: size}))
	up := time.Since(start)
	if err == nil {
		start = time.Now()
		err = e.call("GET", e.api+"/object/bench/huge.bin", nil, nil)
	}
	down := time.Since(start)
	close(done)
	sample()
	if err != nil {
		return fmt.Errorf("stream %d MB: %w", size>>20, err)
	}
	growth := int64(peak.Load()) - int64(base)
	fmt.Printf("\nstream %d MB: upload %.0f MB/s, download %.0f MB/s; heap in use %.1f MB before, peak %.1f MB (+%.1f MB, %.3f of the object)\n",
		size>>20, float64(size)/up.Seconds()/1e6, float64(size)/down.Seconds()/1e6,
		float64(base)/1e6, float64(peak.Load())/1e6, float64(growth)/1e6, float64(growth)/float64(size))
	return nil
}
