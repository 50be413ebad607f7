package gateway

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdev/basalt/internal/accesslog"
	"github.com/basaltdev/basalt/internal/httpx"
)

// requestID propagates a sane incoming X-Request-Id (so ids follow a request
// across proxies) or makes a new random one.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 128 && printable(id) {
		return id
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	// UUID v4 layout, the shape the reference servers log.
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// clientIP is the address the gateway vouches for in X-Real-Ip: the socket
// peer, or (only when the operator opted in) the configured proxy header.
// A client-sent X-Real-Ip is always overwritten, so services can trust it.
func (g *Gateway) clientIP(r *http.Request) string {
	if h := g.cfg.TrustedProxyHeader; h != "" {
		if v := r.Header.Get(h); v != "" {
			// X-Forwarded-For is a list; the proxy we trust appended the
			// last entry, the address it saw the request come from.
			parts := strings.Split(v, ",")
			ip := strings.TrimSpace(parts[len(parts)-1])
			if net.ParseIP(ip) != nil {
				return ip
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// recorder remembers the status and size of a response. It keeps the
// optional interfaces services need: Flush for streaming, Hijack for
// websockets, ReadFrom for zero-copy file downloads, Unwrap for
// http.ResponseController.
type recorder struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader bool
	hijacked    bool
	// userID and role are the caller's, once its token verified.
	userID, role string
}

// WriteHeader records the first status code and passes it on.
func (w *recorder) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write counts the bytes sent.
func (w *recorder) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// ReadFrom passes io.Copy from a file straight to the server's own
// ReadFrom, which sends it with sendfile(2). Without it io.Copy would go
// through Write, and every download would be copied through a 32 KB buffer
// in user space.
func (w *recorder) ReadFrom(src io.Reader) (int64, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src)
	} else {
		// struct{ io.Writer } hides this method from io.Copy, which would
		// otherwise call it again.
		n, err = io.Copy(struct{ io.Writer }{w.ResponseWriter}, src)
	}
	w.bytes += n
	return n, err
}

// Flush sends buffered data to the client.
func (w *recorder) Flush() {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack hands the connection to a websocket handler; the request counts as
// 101 Switching Protocols.
func (w *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		w.hijacked = true
		if !w.wroteHeader {
			w.status, w.wroteHeader = http.StatusSwitchingProtocols, true
		}
	}
	return c, rw, err
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// buffered collects a whole response so the gateway can decide whether to
// forward it (used for the JWKS fallback).
type buffered struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newBuffered() *buffered { return &buffered{header: http.Header{}} }

// Header returns the buffered response's headers.
func (b *buffered) Header() http.Header { return b.header }

// Write buffers body bytes.
func (b *buffered) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// WriteHeader records the first status code.
func (b *buffered) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *buffered) copyTo(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	if b.status == 0 {
		b.status = http.StatusOK
	}
	w.WriteHeader(b.status)
	_, _ = w.Write(b.body.Bytes())
}

// finish records metrics and writes the access log line; it returns the
// status it recorded.
func (g *Gateway) finish(r *http.Request, w *recorder, service, id string, start time.Time, in int64, panicked bool) int {
	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	// The request's context is canceled before ServeHTTP returns only when
	// the client closed the connection (or reset the stream). The handler
	// then fails on its canceled work (REST answers 500 "Request canceled"):
	// that is no server error, and nobody got the answer. A status already
	// sent below 500, or a panic, stays as it was.
	if !panicked && httpx.ClientGone(r) && (!w.wroteHeader || status >= 500) {
		status = httpx.StatusClientClosedRequest
	}
	elapsed := time.Since(start)
	g.metrics.observe(service, r.Method, status, elapsed, in, w.bytes)
	query := redactQuery(r.URL.RawQuery)
	ms := float64(elapsed.Microseconds()) / 1000
	g.log.LogAttrs(r.Context(), levelFor(status), "request",
		slogString("request_id", id),
		slogString("method", r.Method),
		slogString("path", r.URL.Path),
		slogString("query", query),
		slogInt("status", status),
		slogInt64("bytes", w.bytes),
		slogFloat("duration_ms", ms),
		slogString("service", service),
		slogString("client_ip", r.Header.Get(httpx.ClientIPHeader)),
		slogString("user_agent", r.UserAgent()),
	)
	if g.cfg.AccessLog != nil {
		g.cfg.AccessLog.Add(accesslog.Entry{
			At: start, RequestID: id, Service: service, Method: r.Method, Path: r.URL.Path, Query: query,
			Status: status, Bytes: w.bytes, DurationMS: ms, ClientIP: r.Header.Get(httpx.ClientIPHeader),
			UserAgent: r.UserAgent(), UserID: w.userID, Role: w.role,
		})
	}
	return status
}

// countingBody counts the request body bytes the service reads.
type countingBody struct {
	io.ReadCloser
	n int64
}

// Read counts what it passes on.
func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

// countBody puts a counter around r's body; requests without one keep
// http.NoBody and get a nil counter.
func countBody(r *http.Request) *countingBody {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	b := &countingBody{ReadCloser: r.Body}
	r.Body = b
	return b
}

// count is the number of body bytes read so far.
func (b *countingBody) count() int64 {
	if b == nil {
		return 0
	}
	return b.n
}

// redactQuery hides credentials that may travel in the query string
// (websocket apikeys, signed URL tokens) from the logs.
func redactQuery(raw string) string {
	if raw == "" {
		return ""
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return "<unparsable>"
	}
	for _, k := range []string{"apikey", "token", "access_token"} {
		if q.Has(k) {
			q.Set(k, "redacted")
		}
	}
	return q.Encode()
}

func itoa(n int) string { return strconv.Itoa(n) }
