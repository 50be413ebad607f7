package deno

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// What Serve returns when the function did not answer; the functions
// service renders each in the edge runtime's shape.
var (
	// ErrBoot: the worker could not start (syntax or import error, no
	// Deno.serve call): 503 BOOT_ERROR.
	ErrBoot = errors.New("function failed to boot")
	// ErrLimit: the worker hit its memory cap or CPU budget and was
	// replaced: 546 WORKER_LIMIT.
	ErrLimit = errors.New("function hit a resource limit")
	// ErrWallClock: no answer within the request's deadline: 504.
	ErrWallClock = errors.New("function did not answer in time")
	// ErrWorker: the worker died or answered with an uncaught exception:
	// 500 WORKER_ERROR.
	ErrWorker = errors.New("function failed")
	// ErrClientGone: the caller left first; nothing to answer.
	ErrClientGone = errors.New("client went away")
)

// Serve passes r to spec's worker as /{name}{path}, under ctx (the
// caller's context with the wall clock) instead of r's own. The request id
// goes to the worker for its log lines. It returns nil once the worker
// answered (whatever its status), or one of the errors above before any
// byte was written.
func (rt *Runtime) Serve(ctx context.Context, w http.ResponseWriter, r *http.Request, spec Spec, path, requestID string) error {
	var start time.Time
	if rt.cfg.Logs != nil {
		start = time.Now()
	}
	c := &call{sw: statusWriter{ResponseWriter: w}, path: path}
	c.requestID[0] = requestID
	err := rt.serve(ctx, c, r, spec)
	if rt.cfg.Logs != nil {
		inv := Invocation{RequestID: requestID, Method: r.Method, Path: "/" + spec.Name + path, Status: c.sw.status,
			Duration: time.Since(start)}
		if err != nil {
			inv.Error = err.Error()
		}
		rt.cfg.Logs.Invocation(spec.Name, spec.Version, inv)
	}
	return err
}

// call is one request to a worker, in one allocation: the writer that
// records the worker's status, the process CPU time when it began (for the
// CPU budget), what the worker proxy adds to the request, and why the
// worker did not answer, when it did not. It travels to the proxy in the
// request's context.
type call struct {
	sw         statusWriter
	cpuAtStart time.Duration
	path       string    // below the function's name: "" or "/rest"
	requestID  [1]string // the X-Basalt-Request-Id header's value, as http.Header holds it
	reason     string
}

type callKey struct{}

func callOf(ctx context.Context) (*call, bool) {
	c, ok := ctx.Value(callKey{}).(*call)
	return c, ok
}

func (rt *Runtime) serve(ctx context.Context, c *call, r *http.Request, spec Spec) error {
	wk, err := rt.worker(spec)
	if err != nil {
		rt.log.Warn("functions: worker did not boot", "function", spec.Name, "err", err)
		return errors.Join(ErrBoot, err)
	}
	wk.begin(c)
	defer wk.end(c)

	// A shallow copy (the proxy clones it, headers included, and sets the
	// worker's URL on its clone).
	wk.proxy.ServeHTTP(&c.sw, r.WithContext(context.WithValue(ctx, callKey{}, c)))
	if c.sw.status == 0 && c.reason == "" {
		c.reason = endCrash
	}
	switch c.reason {
	case "":
		return nil // answered, WORKER_ERROR included (the bootstrap's)
	case endMemory, endCPU:
		return ErrLimit
	case "timeout":
		return ErrWallClock
	case "gone":
		return ErrClientGone
	case endBoot:
		return ErrBoot
	default:
		return ErrWorker
	}
}

// statusWriter records the status a worker answered.
type statusWriter struct {
	http.ResponseWriter
	status      int
	workerError bool
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
		s.workerError = s.Header().Get("X-Basalt-Worker-Error") != ""
		s.Header().Del("X-Basalt-Worker-Error")
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.WriteHeader(http.StatusOK)
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack hands the connection to the proxy for a protocol upgrade
// (WebSocket): the worker's 101 is the answer.
func (s *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	s.status = http.StatusSwitchingProtocols
	return http.NewResponseController(s.ResponseWriter).Hijack()
}

// Unwrap lets the proxy reach the connection for protocol upgrades.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
