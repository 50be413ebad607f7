package rest

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBulkInsertMemory: concurrent bulk inserts of bodies near the cap
// cost the server a small multiple of each body (the body is handed to
// Postgres as one JSON value, never decoded into Go values), and the
// memory is free again once they are done.
func TestBulkInsertMemory(t *testing.T) {
	// Not parallel: it reads process-wide memory statistics.
	const limit = 2 << 20
	const clients = 4
	e := newEnv(t, func(c *Config) { c.MaxBodyBytes = limit })
	var body []byte
	for n := limit / 40; ; n += 2000 {
		b := inboxRows(n, 0)
		if len(b) > limit-4<<10 {
			break
		}
		body = b
	}
	post := func() *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/inbox", bytes.NewReader(body))
		r.Header.Set("Prefer", "return=minimal")
		return e.serve(r, asAnon)
	}
	// Warm up: connections, prepared statements, schema cache.
	if w := post(); w.Code != 201 {
		t.Fatalf("status %d %s", w.Code, w.Body.String())
	}

	var before, after, settled runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	peak := before.HeapInuse
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
			}
		}
	}()
	var wg sync.WaitGroup
	codes := make([]int, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = post().Code
		}()
	}
	wg.Wait()
	close(done)
	<-sampled
	runtime.ReadMemStats(&after)
	for i, c := range codes {
		if c != 201 {
			t.Fatalf("request %d: status %d", i, c)
		}
	}
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&settled)

	mib := func(b float64) float64 { return b / (1 << 20) }
	perRequest := float64(after.TotalAlloc-before.TotalAlloc) / clients
	growth := float64(peak) - float64(before.HeapInuse)
	retained := float64(settled.HeapInuse) - float64(before.HeapInuse)
	t.Logf("body %.2f MiB: allocated %.1f MiB per request (%.1fx the body), peak heap growth %.1f MiB for %d at once, %.1f MiB still in use after GC",
		mib(float64(len(body))), mib(perRequest), perRequest/float64(len(body)), mib(growth), clients, mib(retained))
	if perRequest > 6*float64(len(body)) {
		t.Errorf("allocated %.1f MiB per request of %.1f MiB", mib(perRequest), mib(float64(len(body))))
	}
	if growth > clients*8*limit {
		t.Errorf("heap grew %.1f MiB for %d requests of %.1f MiB", mib(growth), clients, mib(float64(len(body))))
	}
	if retained > limit {
		t.Errorf("%.1f MiB still in use after the requests", mib(retained))
	}
}

// TestRPCManyKeysMemory: an RPC body of very many keys costs a small
// multiple of its size: no function takes them, so the answer names only
// the first ones and looks for no similar function.
func TestRPCManyKeysMemory(t *testing.T) {
	// Not parallel: it reads process-wide memory statistics.
	e := newEnv(t)
	var b bytes.Buffer
	b.WriteString(`{"a":1`)
	for i := 0; b.Len() < 2<<20; i++ {
		b.WriteString(`,"k` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString("}")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	w := e.serve(httptest.NewRequest("POST", "/rpc/add_them", bytes.NewReader(b.Bytes())), asAnon)
	runtime.ReadMemStats(&after)
	if w.Code != 404 {
		t.Fatalf("status %d %.300s", w.Code, w.Body.String())
	}
	var body struct{ Message, Details string }
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(body.Message, "Could not find the function public.add_them(a, k0, k1, k10, ") ||
		!strings.HasSuffix(body.Message, ", …) in the schema cache") || w.Body.Len() > 8<<10 {
		t.Fatalf("%d bytes: %.300s", w.Body.Len(), w.Body.String())
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("body %d KiB: allocated %.1fx the body", b.Len()>>10, float64(allocated)/float64(b.Len()))
	if allocated > 8*uint64(b.Len()) {
		t.Fatalf("allocated %d MiB for a body of %d MiB", allocated>>20, b.Len()>>20)
	}
}
