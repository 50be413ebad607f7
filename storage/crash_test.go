package storage_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basaltdev/basalt/storage"
)

// faultyBackend wraps a real backend and fails on demand, the way a disk or
// network failure would in the middle of a request.
type faultyBackend struct {
	storage.Backend
	failPut    atomic.Bool // the body breaks off half-way through
	failDelete atomic.Bool
}

var errInjected = errors.New("injected failure")

// brokenReader yields some bytes, then fails.
type brokenReader struct {
	r io.Reader
	n int
}

func (b *brokenReader) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, errInjected
	}
	p = p[:min(len(p), b.n)]
	n, err := b.r.Read(p)
	b.n -= n
	return n, err
}

func (f *faultyBackend) Put(ctx context.Context, key string, r io.Reader, size int64, ct string) error {
	if f.failPut.Load() {
		return f.Backend.Put(ctx, key, &brokenReader{r: r, n: 3}, size, ct)
	}
	return f.Backend.Put(ctx, key, r, size, ct)
}

func (f *faultyBackend) Delete(ctx context.Context, keys ...string) error {
	if f.failDelete.Load() {
		return errInjected
	}
	return f.Backend.Delete(ctx, keys...)
}

func TestCrashConsistency(t *testing.T) {
	t.Parallel()
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			testCrashConsistency(t, kind)
		})
	}
}

func testCrashConsistency(t *testing.T, kind string) {
	fb := &faultyBackend{Backend: newBackend(t, kind)}
	e := newEnvWith(t, fb)
	e.bucket("b", false)
	ctx := context.Background()

	// 1. The backend write breaks off for a new object: no row, no bytes.
	fb.failPut.Store(true)
	rec := e.put(e.service, "b", "new.txt", "text/plain", []byte("some bytes here"), false)
	wantErr(t, rec, 500, "500", "InternalError", "Internal server error")
	if e.count(`SELECT count(*) FROM storage.objects`) != 0 || len(e.backendKeys()) != 0 {
		t.Errorf("failed upload left a row or bytes: %v", e.backendKeys())
	}

	// 2. The backend write breaks off while replacing an object: the row
	// still points at the old bytes, which still serve.
	fb.failPut.Store(false)
	e.put(e.service, "b", "keep.txt", "text/plain", []byte("version one"), false)
	fb.failPut.Store(true)
	wantErr(t, e.put(e.service, "b", "keep.txt", "text/plain", []byte("version two"), true), 500, "500", "InternalError", "Internal server error")
	fb.failPut.Store(false)
	if got := e.get(e.service, "b", "keep.txt", nil).Body.String(); got != "version one" {
		t.Errorf("after failed replace = %q", got)
	}
	if n := len(e.backendKeys()); n != 1 {
		t.Errorf("backend keys = %v", e.backendKeys())
	}

	// 3. The row write fails after the bytes are stored: the bytes go too.
	e.sql(`CREATE FUNCTION public.boom() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		IF NEW.name LIKE 'boom%' AND current_user NOT IN ('anon', 'authenticated', 'service_role') THEN
			RAISE EXCEPTION 'boom';
		END IF;
		RETURN NEW;
	END $$;
	CREATE TRIGGER boom BEFORE INSERT OR UPDATE ON storage.objects FOR EACH ROW EXECUTE FUNCTION public.boom()`)
	wantErr(t, e.put(e.service, "b", "boom.txt", "text/plain", []byte("doomed"), false), 500, "500", "InternalError", "Internal server error")
	if e.count(`SELECT count(*) FROM storage.objects WHERE name = 'boom.txt'`) != 0 || len(e.backendKeys()) != 1 {
		t.Errorf("failed row write left: %v", e.backendKeys())
	}

	// 4. Deleting bytes fails after the rows are gone: the answer is still
	// the deleted rows, the bytes are unreferenced, and the sweep takes them.
	e.put(e.service, "b", "gone.txt", "text/plain", []byte("bye"), false)
	fb.failDelete.Store(true)
	rec = e.do(req{method: "DELETE", path: "/object/b", token: e.service, json: map[string]any{"prefixes": []string{"gone.txt"}}})
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"name":"gone.txt"`) {
		t.Errorf("remove = %d %s", rec.Code, rec.Body)
	}
	fb.failDelete.Store(false)
	wantErr(t, e.get(e.service, "b", "gone.txt", nil), 400, "404", "NoSuchKey", "Object not found")

	// 5. A crash between "bytes written" and "row committed": bytes with no row.
	if err := fb.Put(ctx, "b/crashed.txt/3f1c9a7e-0000-4000-8000-000000000000", strings.NewReader("orphan"), 6, "text/plain"); err != nil {
		t.Fatal(err)
	}
	if n := len(e.backendKeys()); n != 3 {
		t.Fatalf("before sweep: %v", e.backendKeys())
	}

	// Young leftovers are kept (an upload may be about to commit)...
	st, err := e.svc.Sweep(ctx)
	if err != nil || st.Deleted != 0 {
		t.Errorf("early sweep = %+v, %v", st, err)
	}
	// ...old ones go, and referenced bytes stay.
	st, err = storage.Sweep(ctx, e.db.Admin, fb, time.Hour, time.Now().Add(2*time.Hour))
	if err != nil || st.Deleted != 2 || st.Scanned != 3 {
		t.Errorf("sweep = %+v, %v", st, err)
	}
	if got := e.get(e.service, "b", "keep.txt", nil).Body.String(); got != "version one" {
		t.Errorf("after sweep keep.txt = %q", got)
	}
	if n := len(e.backendKeys()); n != 1 {
		t.Errorf("after sweep: %v", e.backendKeys())
	}

	// 6. A row whose bytes vanished answers like the reference.
	e.sql(`INSERT INTO storage.objects (bucket_id, name, metadata) VALUES ('b', 'ghost.txt', '{"size": 3, "mimetype": "text/plain"}')`)
	rec = e.get(e.service, "b", "ghost.txt", nil)
	wantErr(t, rec, 400, "404", "NoSuchKey", "The resource was not found")
	if rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("missing bytes Cache-Control = %q", rec.Header().Get("Cache-Control"))
	}
}

// TestConcurrentWrites races upserts and non-upsert uploads of one key: the
// row always points at bytes that exist, exactly one non-upsert upload
// wins, and whatever the losers stored is swept.
func TestConcurrentWrites(t *testing.T) {
	t.Parallel()
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, kind)
			e.bucket("b", false)
			const n = 8
			codes := make(chan int, 2*n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(2)
				go func() {
					defer wg.Done()
					codes <- e.put(e.service, "b", "race.txt", "text/plain", []byte(fmt.Sprintf("upsert %d", i)), true).Code
				}()
				go func() {
					defer wg.Done()
					rec := e.put(e.service, "b", "once.txt", "text/plain", []byte("x"), false)
					if rec.Code == 400 && !strings.Contains(rec.Body.String(), "KeyAlreadyExists") {
						t.Errorf("non-upsert loser = %s", rec.Body)
					}
					codes <- rec.Code
				}()
			}
			wg.Wait()
			close(codes)
			ok := 0
			for c := range codes {
				if c == 200 {
					ok++
				}
			}
			if ok != n+1 {
				t.Errorf("%d uploads succeeded, want %d upserts + 1 upload", ok, n+1)
			}
			if rec := e.get(e.service, "b", "race.txt", nil); rec.Code != 200 || !strings.HasPrefix(rec.Body.String(), "upsert ") {
				t.Errorf("race.txt = %d %s", rec.Code, rec.Body)
			}
			if _, err := storage.Sweep(context.Background(), e.db.Admin, e.backend, 0, time.Now().Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			if keys := e.backendKeys(); len(keys) != 2 {
				t.Errorf("after sweep: %v, want one key per object", keys)
			}
			if rec := e.get(e.service, "b", "race.txt", nil); rec.Code != 200 {
				t.Errorf("race.txt after sweep = %d %s", rec.Code, rec.Body)
			}
		})
	}
}
