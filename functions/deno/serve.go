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

// Serve passes r to spec's worker as /{name}{path}. The request id goes to
// the worker for its log lines. It returns nil once the worker answered
// (whatever its status), or one of the errors above before any byte was
// written.
func (rt *Runtime) Serve(w http.ResponseWriter, r *http.Request, spec Spec, path, requestID string) error {
	start := time.Now()
	rec := &statusWriter{ResponseWriter: w}
	err := rt.serve(rec, r, spec, path, requestID)
	inv := Invocation{RequestID: requestID, Method: r.Method, Path: "/" + spec.Name + path, Status: rec.status,
		Duration: time.Since(start)}
	if err != nil {
		inv.Error = err.Error()
	}
	if rt.cfg.Logs != nil {
		rt.cfg.Logs.Invocation(spec.Name, spec.Version, inv)
	}
	return err
}

func (rt *Runtime) serve(w *statusWriter, r *http.Request, spec Spec, path, requestID string) error {
	wk, err := rt.worker(spec)
	if err != nil {
		rt.log.Warn("functions: worker did not boot", "function", spec.Name, "err", err)
		return errors.Join(ErrBoot, err)
	}
	inflight := wk.begin()
	defer wk.end(inflight)

	fail := &requestFailure{requestID: requestID}
	// A shallow copy: the proxy clones the request (headers included) once
	// more before it changes anything.
	out := r.WithContext(context.WithValue(r.Context(), failureKey{}, fail))
	u := *r.URL
	u.Path, u.RawPath = "/"+spec.Name+path, ""
	out.URL = &u
	wk.proxy.ServeHTTP(w, out)
	if w.status == 0 && fail.reason == "" {
		fail.reason = endCrash
	}
	switch fail.reason {
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
