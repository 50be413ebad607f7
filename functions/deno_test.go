package functions_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/deno"
	"github.com/basaltdev/basalt/internal/telemetry"
)

// logSink collects what workers log, for assertions.
type logSink struct {
	mu    sync.Mutex
	lines []deno.LogLine
	invs  []deno.Invocation
	seen  chan struct{}
}

func newLogSink() *logSink { return &logSink{seen: make(chan struct{}, 1000)} }

func (l *logSink) Line(fn, version string, line deno.LogLine) {
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
	l.notify()
}

func (l *logSink) Invocation(fn, version string, inv deno.Invocation) {
	l.mu.Lock()
	l.invs = append(l.invs, inv)
	l.mu.Unlock()
	l.notify()
}

// notify wakes a waiter; a full channel already holds wake-ups enough.
func (l *logSink) notify() {
	select {
	case l.seen <- struct{}{}:
	default:
	}
}

// waitInvocation waits for the record of the request with id requestID.
func (l *logSink) waitInvocation(t *testing.T, requestID string) deno.Invocation {
	t.Helper()
	var got deno.Invocation
	l.wait(t, "invocation record of request "+requestID, func() bool {
		for _, inv := range l.invs {
			if inv.RequestID == requestID {
				got = inv
				return true
			}
		}
		return false
	})
	return got
}

// waitLine waits for a log line containing text.
func (l *logSink) waitLine(t *testing.T, text string) deno.LogLine {
	t.Helper()
	var got deno.LogLine
	l.wait(t, "log line with "+text, func() bool {
		for _, line := range l.lines {
			if strings.Contains(line.Message, text) {
				got = line
				return true
			}
		}
		return false
	})
	return got
}

// wait waits until found, called with the sink locked, reports true.
func (l *logSink) wait(t *testing.T, what string, found func() bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		l.mu.Lock()
		ok := found()
		l.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-l.seen:
		case <-deadline:
			t.Fatalf("no %s", what)
		}
	}
}

// project writes a Supabase project (supabase/functions/<name>/index.ts
// and config.toml) and returns its functions folder.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "supabase")
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, "functions")
}

type denoBundle struct {
	url  string
	logs *logSink
	rt   *deno.Runtime
	src  *deno.LocalSource
}

// startDeno serves a project's functions through the functions service on
// a real HTTP server, with real Deno workers.
func startDeno(t *testing.T, dir string, tweak func(*deno.Config, *functions.Config)) *denoBundle {
	t.Helper()
	bin, err := deno.FindBin(os.Getenv)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	logs := newLogSink()
	work := t.TempDir()
	dcfg := deno.Config{DenoBin: bin, WorkDir: work, CacheDir: filepath.Join(work, "cache"),
		MemoryMB: 96, CPUBudget: 2 * time.Second, IdleTimeout: time.Minute, Logs: logs,
		Env: func() map[string]string {
			return map[string]string{"SUPABASE_URL": "http://127.0.0.1:54321", "MY_SECRET": "s3cret"}
		}}
	fcfg := functions.Config{Timeout: 20 * time.Second}
	if tweak != nil {
		tweak(&dcfg, &fcfg)
	}
	rt, err := deno.New(dcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	src, err := deno.NewLocalSource(dir, 100*time.Millisecond, stop)
	if err != nil {
		t.Fatal(err)
	}
	fcfg.Deno, fcfg.Sources = rt, []functions.Source{src}
	svc, err := functions.New(fcfg)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		id := fmt.Sprintf("req-%d", n)
		mu.Unlock()
		svc.ServeHTTP(w, r.WithContext(telemetry.WithRequestID(r.Context(), id)))
	}))
	t.Cleanup(srv.Close)
	return &denoBundle{url: srv.URL, logs: logs, rt: rt, src: src}
}

func call(t *testing.T, method, url, body string, hdr map[string]string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h // net/http sends the Host header from here only
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

const openConfig = `
[functions.hello]
verify_jwt = false
[functions.headers]
verify_jwt = false
[functions.env]
verify_jwt = false
[functions.snoop]
verify_jwt = false
[functions.limits]
verify_jwt = false
[functions.stream]
verify_jwt = false
[functions.ws]
verify_jwt = false
[functions.later]
verify_jwt = false
[functions.broken]
verify_jwt = false
`

func TestDenoFunctions(t *testing.T) {
	dir := project(t, map[string]string{
		"config.toml":                openConfig,
		"functions/_shared/greet.ts": `export const greet = (n: string) => "Hello " + n;`,
		"functions/hello/index.ts": `import { greet } from "../_shared/greet.ts";
Deno.serve(async (req) => {
  const u = new URL(req.url);
  console.log("hello called", u.pathname);
  return Response.json({ msg: greet(u.searchParams.get("name") ?? "World"), url: req.url,
    method: req.method, body: await req.text(), auth: req.headers.get("authorization") });
});`,
		"functions/private/index.ts": `Deno.serve(() => new Response("private"));`,
		"functions/headers/index.ts": `Deno.serve((req) => Response.json({ url: req.url, headers: Object.fromEntries(req.headers) }));`,
		"functions/env/index.ts": `Deno.serve(() => {
  const names = Object.keys(Deno.env.toObject()).filter((k) => !["DENO_DIR", "HOME", "TMPDIR", "NO_COLOR", "DENO_NO_UPDATE_CHECK", "DENO_NODE_SHIM_ACTIVE", "PATH", "DENO_TLS_CA_STORE", "DENO_CERT", "SSL_CERT_FILE", "SSL_CERT_DIR", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy"].includes(k)).sort();
  return Response.json({ url: Deno.env.get("SUPABASE_URL"), secret: Deno.env.get("MY_SECRET"),
    path: Deno.env.get("PATH") ?? "", names: names.join(",") });
});`,
		"functions/snoop/index.ts": `Deno.serve(async () => {
  const out: Record<string, string> = {};
  for (const [k, p] of [["other", "../private/index.ts"], ["etc", "/etc/hostname"]]) {
    try { await Deno.readTextFile(new URL(p, import.meta.url)); out[k] = "read"; } catch (e) { out[k] = (e as Error).name; }
  }
  return Response.json(out);
});`,
		"functions/limits/index.ts": `Deno.serve(async (req) => {
  const what = new URL(req.url).searchParams.get("do");
  if (what === "memory") { const a: number[][] = []; while (true) a.push(new Array(1e6).fill(1)); }
  if (what === "buffers") { const a: Uint8Array[] = []; while (true) a.push(new Uint8Array(64 << 20).fill(1)); }
  if (what === "loop") { while (true) {} }
  if (what === "hang") { await new Promise(() => {}); }
  if (what === "exit") { Deno.exit(3); }
  if (what === "throw") { throw new Error("boom"); }
  return new Response("fine");
});`,
		"functions/stream/index.ts": `Deno.serve(() => {
  let i = 0;
  const body = new ReadableStream({
    async pull(c) {
      if (i === 3) { c.close(); return; }
      c.enqueue(new TextEncoder().encode("data: " + (i++) + "\n\n"));
      await new Promise((r) => setTimeout(r, 300));
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
});`,
		"functions/ws/index.ts": `Deno.serve((req) => {
  if (req.headers.get("upgrade") !== "websocket") return new Response("no upgrade", { status: 400 });
  const { socket, response } = Deno.upgradeWebSocket(req);
  socket.onmessage = (e) => socket.send("echo " + e.data);
  return response;
});`,
		"functions/later/index.ts": `Deno.serve((req) => {
  const delay = Number(new URL(req.url).searchParams.get("delay") ?? "0");
  EdgeRuntime.waitUntil(new Promise((r) => setTimeout(() => { console.log("background done after " + delay); r(null); }, delay)));
  return new Response("answered");
});`,
		"functions/broken/index.ts": `Deno.serve(() => new Response("x")) )))`,
	})
	b := startDeno(t, dir, nil)

	t.Run("serves with _shared and sees its URL", func(t *testing.T) {
		code, body, _ := call(t, "POST", b.url+"/hello/sub/path?name=Ada", "payload", map[string]string{"Authorization": "Bearer abc"})
		if code != 200 {
			t.Fatalf("status %d: %s", code, body)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"msg": "Hello Ada", "url": "http://localhost:8000/hello/sub/path?name=Ada",
			"method": "POST", "body": "payload", "auth": "Bearer abc"}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %v, want %v", k, got[k], v)
			}
		}
		line := b.logs.waitLine(t, "hello called /hello/sub/path")
		if !strings.HasPrefix(line.RequestID, "req-") || line.Level != "info" {
			t.Errorf("log line %+v: want the request id and level info", line)
		}
		inv := b.logs.waitInvocation(t, line.RequestID)
		if inv.Method != "POST" || inv.Path != "/hello/sub/path" || inv.Status != 200 || inv.Error != "" || inv.Duration <= 0 {
			t.Errorf("invocation record %+v: want POST /hello/sub/path answered 200", inv)
		}
	})

	t.Run("sees the caller's request and nothing of Basalt's", func(t *testing.T) {
		// Two requests in turn: the second must not see the first's headers.
		for i, tc := range []struct{ header, path string }{{"x-first", "/headers/a%20b/%C3%A9?q=1&r=%2F"}, {"x-second", "/headers"}} {
			code, body, _ := call(t, "GET", b.url+tc.path, "", map[string]string{tc.header: "yes", "Host": "api.example.com"})
			if code != 200 {
				t.Fatalf("status %d: %s", code, body)
			}
			var got struct {
				URL     string            `json:"url"`
				Headers map[string]string `json:"headers"`
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatal(body, err)
			}
			if want := "http://localhost:8000" + tc.path; got.URL != want {
				t.Errorf("url = %q, want %q", got.URL, want)
			}
			if got.Headers["host"] != "api.example.com" || got.Headers[tc.header] != "yes" {
				t.Errorf("headers %v: want the caller's host and %s", got.Headers, tc.header)
			}
			for k := range got.Headers {
				if strings.HasPrefix(k, "x-basalt-") || i == 1 && k == "x-first" {
					t.Errorf("the function sees %s", k)
				}
			}
		}
	})

	t.Run("verify_jwt defaults to on", func(t *testing.T) {
		code, body, _ := call(t, "GET", b.url+"/private", "", nil)
		if code != 401 || !strings.Contains(body, "Missing authorization header") {
			t.Fatalf("got %d %s, want 401 Missing authorization header", code, body)
		}
	})

	t.Run("environment is the function's only", func(t *testing.T) {
		_, body, _ := call(t, "GET", b.url+"/env", "", nil)
		var got map[string]string
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(body, err)
		}
		// Basalt's own environment (PATH, DATABASE_URL, …) never reaches a function.
		want := map[string]string{"url": "http://127.0.0.1:54321", "secret": "s3cret", "names": "MY_SECRET,SUPABASE_URL"}
		if got["path"] == os.Getenv("PATH") {
			t.Errorf("the function sees Basalt's PATH")
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %q, want %q", k, got[k], v)
			}
		}
	})

	t.Run("cannot read another function or the system", func(t *testing.T) {
		_, body, _ := call(t, "GET", b.url+"/snoop", "", nil)
		if body != `{"other":"NotCapable","etc":"NotCapable"}` {
			t.Fatalf("snoop read: %s", body)
		}
	})

	t.Run("limits answer and the next request works", func(t *testing.T) {
		cases := []struct {
			do, code string
			status   int
		}{
			{"memory", "WORKER_LIMIT", 546},
			{"buffers", "WORKER_LIMIT", 546},
			{"loop", "WORKER_LIMIT", 546},
			{"exit", "WORKER_ERROR", 500},
			{"throw", "WORKER_ERROR", 500},
		}
		for _, c := range cases {
			start := time.Now()
			status, body, _ := call(t, "GET", b.url+"/limits?do="+c.do, "", nil)
			if status != c.status || !strings.Contains(body, c.code) {
				t.Errorf("%s: got %d %s, want %d %s", c.do, status, body, c.status, c.code)
			}
			t.Logf("%s answered %d after %s", c.do, status, time.Since(start).Round(time.Millisecond))
			if status, body, _ := call(t, "GET", b.url+"/limits", "", nil); status != 200 || body != "fine" {
				t.Errorf("after %s: got %d %s", c.do, status, body)
			}
		}
	})

	t.Run("a function that fails to load is a boot error", func(t *testing.T) {
		status, body, _ := call(t, "GET", b.url+"/broken", "", nil)
		if status != 503 || !strings.Contains(body, "BOOT_ERROR") {
			t.Fatalf("got %d %s, want 503 BOOT_ERROR", status, body)
		}
	})

	t.Run("streams as it writes", func(t *testing.T) {
		resp, err := http.Get(b.url + "/stream")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		start := time.Now()
		first, err := r.ReadString('\n')
		if err != nil || first != "data: 0\n" {
			t.Fatalf("first line %q %v", first, err)
		}
		firstAt := time.Since(start)
		rest, _ := io.ReadAll(r)
		if !strings.Contains(string(rest), "data: 2") {
			t.Fatalf("rest %q", rest)
		}
		if total := time.Since(start); firstAt > total/2 {
			t.Errorf("first event after %s of %s: not streamed", firstAt, total)
		}
	})

	t.Run("websockets are upgraded through", func(t *testing.T) {
		c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(b.url, "http")+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.WriteMessage(websocket.TextMessage, []byte("hi")); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, msg, err := c.ReadMessage()
		if err != nil || string(msg) != "echo hi" {
			t.Fatalf("got %q %v", msg, err)
		}
	})

	t.Run("waitUntil finishes after the response", func(t *testing.T) {
		// A first call starts the worker, so the timed one is warm.
		if status, _, _ := call(t, "GET", b.url+"/later?delay=0", "", nil); status != 200 {
			t.Fatal(status)
		}
		b.logs.waitLine(t, "background done after 0")
		start := time.Now()
		status, body, _ := call(t, "GET", b.url+"/later?delay=1500", "", nil)
		answered := time.Since(start)
		if status != 200 || body != "answered" {
			t.Fatalf("got %d %s", status, body)
		}
		line := b.logs.waitLine(t, "background done after 1500")
		if answered > time.Second {
			t.Errorf("the answer waited for the background task (%s)", answered)
		}
		if !strings.HasPrefix(line.RequestID, "req-") {
			t.Errorf("background log line without the request id: %+v", line)
		}
	})

	t.Run("an edited file is served on the next request", func(t *testing.T) {
		p := filepath.Join(dir, "hello", "index.ts")
		if err := os.WriteFile(p, []byte(`Deno.serve(() => new Response("edited"));`), 0o644); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, body, _ := call(t, "GET", b.url+"/hello", "", nil)
			if body == "edited" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("still %q", body)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}

func TestDenoWallClock(t *testing.T) {
	dir := project(t, map[string]string{
		"config.toml": "[functions.hang]\nverify_jwt = false\n",
		"functions/hang/index.ts": `Deno.serve(async (req) => {
  if (new URL(req.url).searchParams.has("hang")) await new Promise(() => {});
  return new Response("ok");
});`,
	})
	b := startDeno(t, dir, func(_ *deno.Config, f *functions.Config) { f.Timeout = 1500 * time.Millisecond })
	status, body, _ := call(t, "GET", b.url+"/hang?hang", "", nil)
	if status != 504 || !strings.Contains(body, "IDLE_TIMEOUT") {
		t.Fatalf("got %d %s, want 504 IDLE_TIMEOUT", status, body)
	}
	if status, body, _ := call(t, "GET", b.url+"/hang", "", nil); status != 200 || body != "ok" {
		t.Fatalf("next request: %d %s", status, body)
	}
}

func TestDenoIdleWorkerStops(t *testing.T) {
	dir := project(t, map[string]string{
		"config.toml":           "[functions.hi]\nverify_jwt = false\n",
		"functions/hi/index.ts": `Deno.serve(() => new Response("hi"));`,
	})
	b := startDeno(t, dir, func(d *deno.Config, _ *functions.Config) { d.IdleTimeout = 400 * time.Millisecond })
	if status, _, _ := call(t, "GET", b.url+"/hi", "", nil); status != 200 {
		t.Fatal(status)
	}
	if got := b.rt.Running(); len(got) != 1 {
		t.Fatalf("running %v after a request", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(b.rt.Running()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("idle worker still running: %v", b.rt.Running())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if status, body, _ := call(t, "GET", b.url+"/hi", "", nil); status != 200 || body != "hi" {
		t.Fatalf("after idle stop: %d %s", status, body)
	}
}

func TestDenoBodyLimit(t *testing.T) {
	dir := project(t, map[string]string{
		"config.toml":             "[functions.size]\nverify_jwt = false\n",
		"functions/size/index.ts": `Deno.serve(async (req) => new Response(String((await req.arrayBuffer()).byteLength)));`,
	})
	b := startDeno(t, dir, func(_ *deno.Config, f *functions.Config) { f.MaxBodyBytes = 1000 })
	if status, body, _ := call(t, "POST", b.url+"/size", strings.Repeat("x", 1000), nil); status != 200 || body != "1000" {
		t.Fatalf("at the limit: %d %s", status, body)
	}
	if status, body, _ := call(t, "POST", b.url+"/size", strings.Repeat("x", 1001), nil); status != 413 || !strings.Contains(body, "PAYLOAD_TOO_LARGE") {
		t.Fatalf("declared over the limit: %d %s", status, body)
	}
	// Chunked, no declared length: cut at the limit.
	req, _ := http.NewRequest("POST", b.url+"/size", io.MultiReader(strings.NewReader(strings.Repeat("y", 3000))))
	req.ContentLength = -1
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Fatalf("chunked over the limit: %d %s", resp.StatusCode, got)
	}
	if status, body, _ := call(t, "POST", b.url+"/size", "ok", nil); status != 200 || body != "2" {
		t.Fatalf("after: %d %s", status, body)
	}
}

func TestDenoPendingTasksBounded(t *testing.T) {
	dir := project(t, map[string]string{
		"config.toml":                "[functions.forever]\nverify_jwt = false\n",
		"functions/forever/index.ts": `Deno.serve(() => { EdgeRuntime.waitUntil(new Promise(() => {})); return new Response("ok"); });`,
	})
	b := startDeno(t, dir, func(d *deno.Config, _ *functions.Config) {
		d.IdleTimeout, d.TaskTimeout = 200*time.Millisecond, 800*time.Millisecond
	})
	start := time.Now()
	if status, _, _ := call(t, "GET", b.url+"/forever", "", nil); status != 200 {
		t.Fatal(status)
	}
	// Past the idle timeout the task keeps the worker; past the task timeout it stops.
	time.Sleep(500 * time.Millisecond)
	if len(b.rt.Running()) != 1 {
		t.Fatal("the worker stopped with a task pending before the task timeout")
	}
	for len(b.rt.Running()) > 0 {
		if time.Since(start) > 5*time.Second {
			t.Fatal("a never-ending task kept the worker alive past the task timeout")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestDenoAnswersItsOwnPreflight: behind the gateway, a TypeScript
// function answers OPTIONS itself, as on Supabase (the _shared/cors.ts
// pattern), while another path keeps the gateway's answer.
func TestDenoAnswersItsOwnPreflight(t *testing.T) {
	dir := project(t, map[string]string{
		"functions/cors/index.ts": `Deno.serve((req) => req.method === "OPTIONS"
  ? new Response("ok", { headers: { "Access-Control-Allow-Origin": "https://app.example", "Access-Control-Allow-Headers": "x-custom" } })
  : new Response("body"));`,
	})
	b := startDeno(t, dir, func(_ *deno.Config, f *functions.Config) { f.GatewayCORS = true })
	pre := map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
	status, body, hdr := call(t, "OPTIONS", b.url+"/cors", "", pre)
	if status != 200 || body != "ok" || hdr.Get("Access-Control-Allow-Headers") != "x-custom" {
		t.Fatalf("the function's preflight: %d %q %v", status, body, hdr)
	}
	status, body, _ = call(t, "OPTIONS", b.url+"/nothing-here", "", pre)
	if status != 200 || body != "" {
		t.Fatalf("preflight elsewhere: %d %q", status, body)
	}
}

func TestDenoNameClashRefused(t *testing.T) {
	dir := project(t, map[string]string{"functions/echo/index.ts": `Deno.serve(() => new Response("ts"));`})
	bin, err := deno.FindBin(os.Getenv)
	if err != nil {
		t.Skip(err)
	}
	work := t.TempDir()
	rt, err := deno.New(deno.Config{DenoBin: bin, WorkDir: work, CacheDir: work})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	src, err := deno.NewLocalSource(dir, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = functions.New(functions.Config{Deno: rt, Sources: []functions.Source{src}},
		functions.Function{Name: "echo", Handler: func(http.ResponseWriter, *http.Request) error { return nil }})
	if err == nil || !strings.Contains(err.Error(), `"echo" is both a Go function and a TypeScript function`) {
		t.Fatalf("got %v", err)
	}
}

var _ = context.Background
