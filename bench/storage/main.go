// Command storage benchmarks /storage/v1 against its own backend: each
// case moves the same bytes twice in the same run, once through the storage
// API over loopback HTTP (JWT check, RLS policy test, Postgres row, MD5,
// backend write or read) and once straight to the backend, and reports the
// ratio. A last case streams one very large object up and down while
// sampling the heap, to show memory stays flat.
//
//	go run ./bench/storage            # full run (about a minute)
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
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/sql/platform"
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
	flag.Parse()
	cases := []benchCase{
		{"1 MB objects", 1 << 20, 128, 16},
		{"50 MB objects", 50 << 20, 8, 4},
		{"10 KB objects", 10 << 10, 4000, 16},
	}
	if *smoke {
		cases = []benchCase{{"1 MB objects", 1 << 20, 16, 4}, {"10 KB objects", 10 << 10, 100, 4}}
		*huge = 32
	}
	if err := run(cases, *huge<<20); err != nil {
		log.Fatal(err)
	}
}

// env is the service under test and its backend.
type env struct {
	url     string
	token   string
	backend *fsbackend.Backend
	client  *http.Client
}

func run(cases []benchCase, hugeSize int64) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "stbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	admin, user, stop, err := startPostgres(ctx, dir)
	if err != nil {
		return err
	}
	defer stop()
	keys, err := jwt.Generate(time.Now())
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
	srv := httptest.NewServer(svc)
	defer srv.Close()
	e := &env{url: srv.URL, token: keys.ServiceRoleKey, backend: backend,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	if err := e.call("POST", "/bucket", bytes.NewReader([]byte(`{"name":"bench"}`)), "application/json", nil); err != nil {
		return fmt.Errorf("create bucket: %w", err)
	}

	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tconc\tAPI\tdirect backend\tratio\t")
	for _, c := range cases {
		data := make([]byte, c.size)
		_, _ = rand.Read(data)
		unit, scale := "MB/s", func(d time.Duration) float64 { return float64(c.size*int64(c.count)) / d.Seconds() / 1e6 }
		if c.size < 1<<20 {
			unit, scale = "req/s", func(d time.Duration) float64 { return float64(c.count) / d.Seconds() }
		}
		// Uploads: the API (multipart-free raw body, as storage-js sends a
		// Buffer) against Put on the backend with the same bytes.
		api, err := parallel(c, func(i int) error {
			return e.call("POST", fmt.Sprintf("/object/bench/%s/%d", c.name, i), bytes.NewReader(data), "application/octet-stream", nil)
		})
		if err != nil {
			return fmt.Errorf("%s upload: %w", c.name, err)
		}
		direct, err := parallel(c, func(i int) error {
			return backend.Put(ctx, fmt.Sprintf("direct/%s/%d", c.name, i), bytes.NewReader(data), c.size, "")
		})
		if err != nil {
			return fmt.Errorf("%s direct put: %w", c.name, err)
		}
		fmt.Fprintf(tw, "upload %s\t%d\t%.1f %s\t%.1f %s\t%.2f\t\n", c.name, c.concurrency, scale(api), unit, scale(direct), unit,
			direct.Seconds()/api.Seconds())

		api, err = parallel(c, func(i int) error {
			return e.call("GET", fmt.Sprintf("/object/bench/%s/%d", c.name, i), nil, "", io.Discard)
		})
		if err != nil {
			return fmt.Errorf("%s download: %w", c.name, err)
		}
		direct, err = parallel(c, func(i int) error {
			r, err := backend.Get(ctx, fmt.Sprintf("direct/%s/%d", c.name, i), 0, -1)
			if err != nil {
				return err
			}
			defer r.Close()
			_, err = io.Copy(io.Discard, r)
			return err
		})
		if err != nil {
			return fmt.Errorf("%s direct get: %w", c.name, err)
		}
		fmt.Fprintf(tw, "download %s\t%d\t%.1f %s\t%.1f %s\t%.2f\t\n", c.name, c.concurrency, scale(api), unit, scale(direct), unit,
			direct.Seconds()/api.Seconds())
		tw.Flush()
	}
	tw.Flush()
	return e.streamCheck(hugeSize)
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

// call makes one API request and drains the answer into sink (or checks it
// is a 200).
func (e *env) call(method, path string, body io.Reader, contentType string, sink io.Writer) error {
	req, err := http.NewRequest(method, e.url+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+e.token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := e.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	if sink == nil {
		sink = io.Discard
	}
	_, err = io.Copy(sink, res.Body)
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
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}
	}()
	start := time.Now()
	err := e.call("POST", "/object/bench/huge.bin", io.MultiReader(&zeroReader{n: size}), "application/octet-stream", nil)
	up := time.Since(start)
	if err == nil {
		start = time.Now()
		err = e.call("GET", "/object/bench/huge.bin", nil, "", io.Discard)
	}
	down := time.Since(start)
	close(done)
	if err != nil {
		return fmt.Errorf("stream %d MB: %w", size>>20, err)
	}
	growth := int64(peak.Load()) - int64(base)
	fmt.Printf("\nstream %d MB: upload %.0f MB/s, download %.0f MB/s; heap in use %.1f MB before, peak %.1f MB (+%.1f MB, %.3f of the object)\n",
		size>>20, float64(size)/up.Seconds()/1e6, float64(size)/down.Seconds()/1e6,
		float64(base)/1e6, float64(peak.Load())/1e6, float64(growth)/1e6, float64(growth)/float64(size))
	return nil
}

// startPostgres runs a private cluster in dir with the platform migrations.
func startPostgres(ctx context.Context, dir string) (admin, user *pgxpool.Pool, stop func(), err error) {
	c := &pgcluster.Cluster{DataDir: filepath.Join(dir, "pg"), SocketDir: dir,
		Settings: map[string]string{"fsync": "off", "synchronous_commit": "off", "max_connections": "100",
			"listen_addresses": "''"}}
	if err := c.Init(ctx); err != nil {
		return nil, nil, nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, nil, nil, err
	}
	stop = func() { _ = c.Stop(context.Background(), "fast") }
	// Pools sized for the 16 concurrent clients, as a server would be.
	size := func(cfg *pgxpool.Config) { cfg.MaxConns = 32 }
	if admin, err = pg.Connect(ctx, c.SocketURL("postgres", "postgres"), size); err != nil {
		stop()
		return nil, nil, nil, err
	}
	if _, err = migrate.Up(ctx, admin, nil, migrate.Source{Name: "platform", FS: platform.FS}); err != nil {
		stop()
		return nil, nil, nil, err
	}
	if user, err = pg.Connect(ctx, c.SocketURL("authenticator", "postgres"), size); err != nil {
		stop()
		return nil, nil, nil, err
	}
	return admin, user, stop, nil
}
