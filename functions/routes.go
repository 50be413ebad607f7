package functions

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/basaltdev/basalt/functions/deno"
	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/telemetry"
)

// healthPath is the local edge runtime's health probe.
const healthPath = "/_internal/health"

// ServeHTTP routes /{name}[/{rest}] to the function called name. The whole
// surface is:
//
//	OPTIONS /*                   CORS preflight, answered here for every path
//	                             (by the gateway when GatewayCORS is set)
//	GET     /_internal/health    200 {"message":"ok"}
//	*       /_admin/...          deploys, secrets, logs (service_role only)
//	*       /{name}[/{rest...}]  the function (verify_jwt first when on)
//	*       anything else        404 text/plain "Function not found"
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.cfg.GatewayCORS {
		setCORS(w.Header())
		// Answered before routing, as the CLI's Kong cors plugin does, so a
		// preflight never meets verify_jwt or a missing function.
		if r.Method == http.MethodOptions {
			preflight(w, r)
			return
		}
	}
	path := strings.TrimPrefix(r.URL.Path, "/")
	if "/"+path == healthPath && r.Method == http.MethodGet {
		httpx.WriteJSON(w, http.StatusOK, map[string]string{"message": "ok"})
		return
	}
	name, rest, _ := strings.Cut(path, "/")
	// Behind the gateway a preflight arrives with its CORS headers already
	// set: a TypeScript function answers it itself, as on Supabase; for
	// anything else the gateway's answer stands.
	if s.cfg.GatewayCORS && r.Method == http.MethodOptions && r.Header.Get("Origin") != "" &&
		r.Header.Get("Access-Control-Request-Method") != "" {
		if f, ok := s.tsHandler(name); ok {
			s.invoke(w, r, f, rest, s.caller(r), &limitedBody{ReadCloser: r.Body, left: s.cfg.MaxBodyBytes})
			return
		}
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusOK)
		return
	}
	// _admin can be no function's name (names start with a letter or digit).
	if name == "_admin" && s.cfg.Admin != nil {
		r2 := r.Clone(jwt.NewContext(r.Context(), s.caller(r)))
		r2.URL.Path, r2.URL.RawPath = "/"+rest, ""
		s.cfg.Admin.ServeHTTP(w, r2)
		return
	}
	f, ok := s.funcs[name]
	if !ok {
		f, ok = s.tsHandler(name)
	}
	if !ok {
		notFound(w)
		return
	}
	caller := s.caller(r)
	// verify_jwt never applies to OPTIONS: behind a gateway that answers
	// preflights, one that reaches here is the function's own business.
	if f.VerifyJWT && r.Method != http.MethodOptions {
		if err := verifyJWT(r, caller); err != nil {
			writeError(w, err)
			return
		}
	}
	// Bodies are bounded as every service's are: a declared length over
	// the limit is refused before the function runs; an undeclared one is
	// cut at the limit (the function then sees a read error, the caller 413).
	if r.ContentLength > s.cfg.MaxBodyBytes {
		writeError(w, errTooLarge)
		return
	}
	var body *limitedBody
	if r.Body != http.NoBody {
		body = &limitedBody{ReadCloser: r.Body, left: s.cfg.MaxBodyBytes}
		r.Body = body
	}
	s.invoke(w, r, f, rest, caller, body)
}

// limitedBody stops a request body at its limit and remembers it did.
type limitedBody struct {
	io.ReadCloser
	left int64
	hit  bool
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the limit from a longer one.
		var one [1]byte
		if n, _ := b.ReadCloser.Read(one[:]); n > 0 {
			b.hit = true
			return 0, errBodyTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

var errBodyTooLarge = errors.New("request body over the limit")

// invoke runs the handler with the function-relative path, the wall-clock
// limit and the runtime's error rendering. body is nil when the request
// has none.
func (s *Service) invoke(w http.ResponseWriter, r *http.Request, f Function, rest string, caller *jwt.Caller, body *limitedBody) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	rw := &responseWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.ErrorContext(ctx, "function panicked", "function", f.Name, "panic", fmt.Sprint(p))
			if !rw.wrote {
				writeError(rw, errWorker)
			}
		}
	}()
	var err error
	if f.Handler == nil {
		err = s.serveScript(ctx, rw, r, f.script, rest)
	} else {
		if jwt.FromContext(ctx) != caller {
			ctx = jwt.NewContext(ctx, caller)
		}
		fr := r.WithContext(ctx)
		u := *r.URL
		u.Path, u.RawPath = "/"+rest, ""
		fr.URL = &u
		err = f.Handler(rw, fr)
	}
	if err == nil {
		return
	}
	var fe *Error
	switch {
	case body != nil && body.hit:
		err = errTooLarge
	case errors.As(err, &fe):
		if fe.Err != nil {
			s.log.WarnContext(ctx, "function error", "function", f.Name, "status", fe.Status, "err", fe.Err)
		}
	case errors.Is(err, pg.ErrRoleNotAllowed):
		// A function without verify_jwt acted as a caller whose role is
		// outside the allow-list: the token is refused as verify_jwt would.
		err = errInvalidJWT
	case pg.Unavailable(err):
		s.log.WarnContext(ctx, "function could not reach the database", "function", f.Name, "err", err)
		httpx.SetRetryAfter(rw)
		err = errDBUnavailable
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		s.log.ErrorContext(ctx, "function hit its time limit", "function", f.Name, "timeout", s.cfg.Timeout, "err", err)
		err = errLimit
	default:
		s.log.ErrorContext(ctx, "function failed", "function", f.Name, "err", err)
		err = errWorker
	}
	if rw.wrote {
		return // the handler already answered; nothing more can be sent
	}
	writeError(rw, err)
}

// tsHandler is a TypeScript function as a Function like the Go ones, so
// verify_jwt, the wall clock and the error bodies are the same for both;
// invoke serves it through the Deno runtime.
func (s *Service) tsHandler(name string) (Function, bool) {
	spec, ok := s.lookupTS(name)
	if !ok {
		return Function{}, false
	}
	verify := spec.VerifyJWT && !slices.Contains(s.cfg.NoVerifyJWT, name)
	return Function{Name: name, VerifyJWT: verify, script: spec}, true
}

// serveScript passes the request to the function's Deno worker, under ctx
// (the wall clock), as /{name}/{rest}.
func (s *Service) serveScript(ctx context.Context, w http.ResponseWriter, r *http.Request, spec deno.Spec, rest string) error {
	path := ""
	if rest != "" {
		path = "/" + rest
	}
	err := s.cfg.Deno.Serve(ctx, w, r, spec, path, telemetry.RequestID(ctx))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, deno.ErrClientGone):
		return nil // nobody to answer; the gateway logs the 499
	case errors.Is(err, deno.ErrBoot):
		return errBoot
	case errors.Is(err, deno.ErrLimit):
		return errLimit
	case errors.Is(err, deno.ErrWallClock):
		return errIdleTimeout
	default:
		return errWorker
	}
}

// caller returns what the gateway verified. Without a gateway (the service
// used on its own) and with Keys configured, it verifies the Authorization
// header itself so handlers see the same jwt.Caller either way.
func (s *Service) caller(r *http.Request) *jwt.Caller {
	c := jwt.FromContext(r.Context())
	if c.Token != "" || c.Claims != nil || c.Err != nil || s.cfg.Keys == nil {
		return c
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || token == "" {
		return c
	}
	claims, err := s.cfg.Keys.Verify(token, s.now())
	return &jwt.Caller{Token: token, Claims: claims, Err: err}
}

// verifyJWT is the edge gateway's verify_jwt check: a Bearer token signed by
// the project and within its validity, naming a role callers may act as
// (anon included: a function that needs a user checks the claims itself).
func verifyJWT(r *http.Request, c *jwt.Caller) error {
	if h := r.Header.Get("Authorization"); h != "" && !strings.HasPrefix(h, "Bearer ") {
		return errBadScheme
	}
	switch {
	case c.Claims != nil && c.Err == nil:
		if c.Claims.Role != "" && !pg.APIRoles().Allows(c.Claims.Role) {
			return errInvalidJWT
		}
		return nil
	case c.Token == "" && c.Err == nil:
		return errMissingAuth
	default:
		return errInvalidJWT
	}
}

// responseWriter drops x-relay-error (functions-js would report any
// response carrying it as a relay failure) and remembers whether the
// handler has started its answer.
type responseWriter struct {
	http.ResponseWriter
	wrote bool
}

// WriteHeader drops x-relay-error before the status goes out.
func (w *responseWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		w.Header().Del("X-Relay-Error")
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write sends the status first when the handler did not.
func (w *responseWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets streaming functions (text/event-stream) push data as it comes.
func (w *responseWriter) Flush() {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack hands the connection over (a TypeScript function's WebSocket
// upgrade): the answer is then the function's, on the raw connection.
func (w *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.wrote = true
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap gives http.ResponseController access to the underlying writer.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
