package deno

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Why a worker ended, which decides what requests still in flight are told.
const (
	endNone    = ""
	endMemory  = "memory"   // over its memory cap: 546 WORKER_LIMIT
	endCPU     = "cpu"      // over its CPU budget: 546 WORKER_LIMIT
	endCrash   = "crash"    // exited on its own: 500 WORKER_ERROR
	endStopped = "stopped"  // stopped by Basalt (idle, reload, shutdown)
	endStart   = "start"    // never became ready: 500 WORKER_ERROR
	endBoot    = "bootfail" // the function failed to load
)

// worker is one Deno process serving one function version. Requests reach
// it over loopback HTTP with the worker's token; its stdout carries the
// control channel (see bootstrap.ts).
type worker struct {
	spec      Spec
	rt        *Runtime
	cmd       *exec.Cmd
	token     string
	proxy     *httputil.ReverseProxy
	transport *http.Transport
	ready     chan struct{} // closed when listening (or when start failed)
	done      chan struct{} // closed when the process has exited

	socket string // the unix socket the worker serves on

	mu        sync.Mutex
	listening bool
	startErr  error
	endReason string
	inflight  map[*call]struct{}
	tasks     int       // pending EdgeRuntime.waitUntil tasks
	lastUsed  time.Time // for the idle reaper
	stderr    tailBuffer
	cpu       atomic.Int64 // the process's CPU time at the watcher's last sample
	started   time.Time
	coldStart time.Duration
}

func newToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand never fails on Linux
	return hex.EncodeToString(b)
}

// hostNetworkEnv are the variables of Basalt's own environment a worker
// inherits; nothing else of it reaches a function.
var hostNetworkEnv = []string{"DENO_CERT", "DENO_TLS_CA_STORE", "SSL_CERT_FILE", "SSL_CERT_DIR",
	"HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy"}

// startWorker launches Deno for spec. It returns at once; ready is closed
// when the worker listens or has failed to start.
func (rt *Runtime) startWorker(spec Spec) (*worker, error) {
	if err := rt.prepare(); err != nil {
		return nil, err
	}
	w := &worker{
		spec: spec, rt: rt, token: newToken(),
		ready: make(chan struct{}), done: make(chan struct{}),
		inflight: map[*call]struct{}{}, lastUsed: time.Now(), started: time.Now(),
	}
	// The system's temp folder keeps the socket's path under the unix
	// limit (108 bytes) wherever Basalt's data lives.
	tmp, err := os.MkdirTemp("", "basalt-fn-")
	if err != nil {
		return nil, fmt.Errorf("deno: temp folder for %s: %w", spec.Name, err)
	}
	env := rt.functionEnv()
	args := []string{"run", "--quiet", "--no-prompt",
		"--allow-net",
		// request.signal aborts only when the client goes away, as functions expect.
		"--unstable-no-legacy-abort",
		"--allow-read=" + strings.Join(spec.ReadDirs, ",") + "," + tmp,
		"--allow-write=" + tmp,
		fmt.Sprintf("--v8-flags=--max-old-space-size=%d", rt.cfg.MemoryMB),
	}
	// The process environment holds only the function's variables (and
	// Deno's own folders), so reading any of it reveals nothing else; an
	// unset variable reads as undefined, as on Supabase.
	args = append(args, "--allow-env")
	switch {
	case spec.ConfigFile != "":
		args = append(args, "--config="+spec.ConfigFile)
	default:
		args = append(args, "--no-config")
	}
	if spec.ImportMap != "" {
		args = append(args, "--import-map="+spec.ImportMap)
	}
	args = append(args, rt.bootstrapPath)
	cmd := exec.Command(rt.cfg.DenoBin, args...)
	cmd.Dir = spec.Root
	cmd.Env = []string{"DENO_DIR=" + rt.cfg.CacheDir, "DENO_NO_UPDATE_CHECK=1", "NO_COLOR=1",
		"HOME=" + tmp, "TMPDIR=" + tmp, "DENO_TLS_CA_STORE=mozilla,system"}
	// The host's network settings (proxy, extra certificate authorities)
	// hold for functions too: module downloads and fetch() go through them.
	for _, k := range hostNetworkEnv {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	// Its own process group, so a stop reaches anything it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = &w.stderr
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(tmp)
		return nil, fmt.Errorf("deno: start %s: %w", spec.Name, err)
	}
	w.cmd = cmd
	w.socket = filepath.Join(tmp, "worker.sock")
	settings, _ := json.Marshal(map[string]string{
		"token": w.token, "entrypoint": "file://" + spec.Entrypoint, "origin": rt.cfg.URLOrigin,
		"socket": w.socket,
	})
	go func() {
		_, _ = stdin.Write(append(settings, '\n'))
		// stdin stays open: a closed stdin is no signal the function sees.
	}()
	go w.readControl(stdout)
	go func() {
		err := cmd.Wait()
		_ = os.RemoveAll(tmp)
		w.mu.Lock()
		if w.endReason == endNone {
			w.endReason = endCrash
			if !w.listening {
				w.endReason = endBoot
			}
			if outOfMemory(err, w.stderr.String()) {
				w.endReason = endMemory
			}
		}
		reason := w.endReason
		if w.transport != nil {
			w.transport.CloseIdleConnections()
		}
		if !w.listening && w.startErr == nil {
			w.startErr = fmt.Errorf("function %s did not start: %s", spec.Name, lastLines(w.stderr.String(), 5))
		}
		w.mu.Unlock()
		w.markReady()
		close(w.done)
		rt.workerEnded(w, reason)
	}()
	go w.watch()
	return w, nil
}

// outOfMemory tells a V8 heap exhaustion (SIGTRAP/SIGABRT after "out of
// memory") from other exits.
func outOfMemory(waitErr error, stderr string) bool {
	return strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "heap limit")
}

func (w *worker) markReady() {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-w.ready:
	default:
		close(w.ready)
	}
}

// readControl reads the control channel until the process closes stdout.
func (w *worker) readControl(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		var msg struct {
			T     string `json:"t"`
			N     int    `json:"n"`
			Level string `json:"level"`
			RID   string `json:"rid"`
			Msg   string `json:"msg"`
		}
		line := sc.Bytes()
		if json.Unmarshal(line, &msg) != nil {
			// Output written around console (Deno.stdout directly): keep it.
			w.rt.logLine(w.spec, LogLine{Level: "info", Message: string(line)})
			continue
		}
		switch msg.T {
		case "listen":
			proxy, transport := w.newProxy()
			w.mu.Lock()
			w.listening = true
			w.lastUsed = time.Now()
			w.coldStart = time.Since(w.started)
			w.proxy, w.transport = proxy, transport
			w.mu.Unlock()
			w.markReady()
			w.rt.log.Info("functions: worker ready", "function", w.spec.Name, "version", w.spec.Version,
				"cold_start_ms", w.coldStart.Milliseconds())
		case "tasks":
			w.mu.Lock()
			w.tasks = msg.N
			w.lastUsed = time.Now()
			w.mu.Unlock()
		case "log":
			w.rt.logLine(w.spec, LogLine{Level: msg.Level, RequestID: msg.RID, Message: msg.Msg})
		}
	}
	_, _ = io.Copy(io.Discard, stdout)
}

func (w *worker) newProxy() (*httputil.ReverseProxy, *http.Transport) {
	// The request line names the functions' origin in absolute form
	// (http://localhost:8000/name/path), which Deno takes for req.url: the
	// bootstrap need not parse and rebuild it. The Host header stays the
	// caller's.
	namePath := "/" + w.spec.Name
	var absolute string
	if o, err := url.Parse(w.rt.cfg.URLOrigin); err == nil && o.Scheme == "http" && o.Host != "" && o.Path == "" {
		// The name needs no escaping (letters, digits, '-' and '_').
		absolute = "//" + o.Host + namePath
	}
	// Read-only, shared by every request (http.Header values are replaced,
	// never written in place).
	token := []string{w.token}
	socket := w.socket
	transport := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// pr.Out.URL is the proxy's own copy: set in place.
			u := pr.Out.URL
			u.Scheme, u.Host, u.Opaque = "http", "worker", ""
			var fnPath string
			if c, ok := callOf(pr.In.Context()); ok {
				fnPath = c.path
				pr.Out.Header["X-Basalt-Request-Id"] = c.requestID[:]
			}
			u.Path, u.RawPath = namePath+fnPath, ""
			if absolute != "" {
				u.Opaque = absolute + (&url.URL{Path: fnPath}).EscapedPath()
			}
			pr.Out.Host = pr.In.Host
			pr.Out.Header["X-Basalt-Worker-Token"] = token
			// The function sees the caller's headers, not a proxy's.
			pr.Out.Header.Del("X-Forwarded-For")
		},
		Transport:  transport,
		BufferPool: copyBuffers,
		// 0: a sized answer goes out in one write; SSE and chunked answers
		// (unknown length) are still flushed as the function writes them.
		FlushInterval: 0,
		ErrorHandler: func(rw http.ResponseWriter, r *http.Request, err error) {
			w.proxyFailed(rw, r, err)
		},
	}, transport
}

// copyBuffers lends the proxy its body copy buffers: without them every
// request allocates 32 KB.
var copyBuffers = &bufferPool{}

type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte {
	if buf, ok := b.p.Get().(*[]byte); ok {
		return *buf
	}
	return make([]byte, 32<<10)
}

func (b *bufferPool) Put(buf []byte) { b.p.Put(&buf) }

// proxyFailed decides what a request the worker did not answer gets: the
// worker hit a limit (546), the request hit the wall clock (504), the
// client left (nothing), or the worker failed (500).
func (w *worker) proxyFailed(rw http.ResponseWriter, r *http.Request, err error) {
	if f, ok := callOf(r.Context()); ok {
		select {
		case <-w.done:
			w.mu.Lock()
			f.reason = w.endReason
			w.mu.Unlock()
		default:
			switch {
			case errors.Is(r.Context().Err(), context.DeadlineExceeded):
				f.reason = "timeout"
			case r.Context().Err() != nil:
				f.reason = "gone"
			default:
				// The process may be exiting: give its exit a moment to be
				// seen, so an out-of-memory death is reported as such.
				select {
				case <-w.done:
					w.mu.Lock()
					f.reason = w.endReason
					w.mu.Unlock()
				case <-time.After(500 * time.Millisecond):
					f.reason = endCrash
				}
			}
		}
	}
	w.rt.log.Warn("functions: worker did not answer", "function", w.spec.Name, "err", err)
}

// begin registers a request; end unregisters it.
func (w *worker) begin(c *call) {
	// The watcher's last sample (at most one interval old) saves a read of
	// /proc per request.
	c.cpuAtStart = time.Duration(w.cpu.Load())
	w.mu.Lock()
	w.inflight[c] = struct{}{}
	w.lastUsed = time.Now()
	w.mu.Unlock()
}

func (w *worker) end(c *call) {
	w.mu.Lock()
	delete(w.inflight, c)
	w.lastUsed = time.Now()
	w.mu.Unlock()
}

// busy reports whether the worker serves a request or runs a background
// task.
func (w *worker) busy() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.inflight) > 0 || w.tasks > 0
}

// watch enforces the memory cap and the CPU budget while the worker lives.
// V8's heap limit catches most allocations; the resident-set check also
// catches memory outside the heap (ArrayBuffers, native code).
func (w *worker) watch() {
	tick := time.NewTicker(w.rt.cfg.WatchInterval)
	defer tick.Stop()
	pid := w.cmd.Process.Pid
	for {
		select {
		case <-w.done:
			return
		case <-tick.C:
		}
		if rss := processRSS(pid); rss > int64(w.rt.cfg.MemoryMB)*2<<20 {
			w.kill(endMemory, fmt.Sprintf("resident memory %d MB over the cap", rss>>20))
			return
		}
		cpu := processCPU(pid)
		w.cpu.Store(int64(cpu))
		w.mu.Lock()
		over := false
		for c := range w.inflight {
			if cpu-c.cpuAtStart > w.rt.cfg.CPUBudget {
				over = true
			}
		}
		w.mu.Unlock()
		if over {
			w.kill(endCPU, "a request used more CPU time than the budget")
			return
		}
	}
}

// kill ends the worker's process group for reason.
func (w *worker) kill(reason, why string) {
	w.mu.Lock()
	if w.endReason == endNone {
		w.endReason = reason
	}
	w.mu.Unlock()
	if reason != endStopped {
		w.rt.log.Warn("functions: worker stopped", "function", w.spec.Name, "reason", reason, "why", why)
	}
	_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
}

// stop ends the worker and waits for it.
func (w *worker) stop() {
	w.kill(endStopped, "")
	<-w.done
}

// processCPU is user+system CPU time of pid from /proc (0 when gone).
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile(filepath.Join("/proc", fmt.Sprint(pid), "stat"))
	if err != nil {
		return 0
	}
	// Fields after the command name, which may hold spaces: ") S ppid ...".
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	var utime, stime int64
	_, _ = fmt.Sscan(f[11], &utime)
	_, _ = fmt.Sscan(f[12], &stime)
	return time.Duration(utime+stime) * time.Second / clockTicks
}

// clockTicks is USER_HZ, 100 on every Linux Basalt runs on.
const clockTicks = 100

// processRSS is the resident set of pid in bytes (0 when gone).
func processRSS(pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", fmt.Sprint(pid), "statm"))
	if err != nil {
		return 0
	}
	var size, resident int64
	_, _ = fmt.Sscan(string(b), &size, &resident)
	return resident * int64(os.Getpagesize())
}

// tailBuffer keeps the last 16 KB written to it (a worker's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 16<<10 {
		t.buf = t.buf[len(t.buf)-16<<10:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
