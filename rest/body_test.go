package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/basaltdev/basalt/internal/httpx"
)

// serve runs r through the service as c would send it.
func (e *env) serve(r *http.Request, c caller) *httptest.ResponseRecorder {
	r.Header.Set("X-Real-Ip", "10.1.2.3")
	if r.Header.Get("Content-Type") == "" && r.Method != http.MethodGet {
		r.Header.Set("Content-Type", "application/json")
	}
	r = r.WithContext(c.context(r.Context()))
	w := httptest.NewRecorder()
	e.svc.ServeHTTP(w, r)
	return w
}

// errorBody decodes a PostgREST error body.
func errorBody(t *testing.T, w *httptest.ResponseRecorder) (code, message string) {
	t.Helper()
	var b struct {
		Code    string  `json:"code"`
		Message string  `json:"message"`
		Details *string `json:"details"`
		Hint    *string `json:"hint"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
		t.Fatalf("error body %q: %v", w.Body.String(), err)
	}
	return b.Code, b.Message
}

// inboxRows is a JSON array of n inbox rows, padded with spaces to size
// bytes when size is larger.
func inboxRows(n, size int) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"email":"m` + strconv.Itoa(i) + `@x"}`)
	}
	b.WriteByte(']')
	for b.Len() < size {
		b.WriteByte(' ')
	}
	return b.Bytes()
}

func inboxCount(t *testing.T, e *env) int {
	t.Helper()
	var n int
	if err := e.db.Admin.QueryRow(context.Background(), "SELECT count(*) FROM inbox").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// endless is a body that never ends: a JSON array opened and then
// whitespace, n bytes read so far.
type endless struct{ n int64 }

func (r *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	if r.n == 0 {
		p[0] = '['
	}
	r.n += int64(len(p))
	return len(p), nil
}

// TestBodyLimit: a body over the cap is answered 413 before anything is
// parsed or written, whether its length is announced or not; a body of
// exactly the cap is accepted.
func TestBodyLimit(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	e := newEnv(t, func(c *Config) { c.MaxBodyBytes = limit })
	tooLarge := func(t *testing.T, w *httptest.ResponseRecorder) {
		t.Helper()
		if w.Code != http.StatusRequestEntityTooLarge {
			t.Fatalf("status %d, want 413: %s", w.Code, w.Body.String())
		}
		if code, msg := errorBody(t, w); code != "PGRST102" || msg != "Payload too large" {
			t.Fatalf("body %s", w.Body.String())
		}
		if got := w.Header().Get("Proxy-Status"); got != "PostgREST; error=PGRST102" {
			t.Fatalf("Proxy-Status %q", got)
		}
	}

	t.Run("at the cap", func(t *testing.T) {
		body := inboxRows(100, limit)
		w := e.serve(httptest.NewRequest("POST", "/inbox", bytes.NewReader(body)), asAnon)
		if w.Code != 201 || inboxCount(t, e) != 100 {
			t.Fatalf("status %d %s, rows %d", w.Code, w.Body.String(), inboxCount(t, e))
		}
	})
	t.Run("one byte over, announced", func(t *testing.T) {
		before := inboxCount(t, e)
		w := e.serve(httptest.NewRequest("POST", "/inbox", bytes.NewReader(inboxRows(100, limit+1))), asAnon)
		tooLarge(t, w)
		if inboxCount(t, e) != before {
			t.Fatal("rows were written")
		}
	})
	t.Run("over, chunked", func(t *testing.T) {
		r := httptest.NewRequest("POST", "/inbox", io.MultiReader(bytes.NewReader(inboxRows(100, limit)), strings.NewReader(" ")))
		r.ContentLength = -1
		tooLarge(t, e.serve(r, asAnon))
	})
	t.Run("rpc", func(t *testing.T) {
		body := `{"a":1,"b":2` + strings.Repeat(" ", limit) + `}`
		tooLarge(t, e.serve(httptest.NewRequest("POST", "/rpc/add_them", strings.NewReader(body)), asAnon))
	})
	t.Run("csv growing past the cap as JSON", func(t *testing.T) {
		// A long header repeated for every near-empty line: the JSON it
		// becomes is far larger than the CSV.
		head := strings.Repeat("x", 1000)
		csv := "email," + head + "\n" + strings.Repeat("a,\n", (limit-2000)/3)
		r := httptest.NewRequest("POST", "/inbox", strings.NewReader(csv))
		r.Header.Set("Content-Type", "text/csv")
		tooLarge(t, e.serve(r, asAnon))
	})
	t.Run("csv under the cap", func(t *testing.T) {
		before := inboxCount(t, e)
		r := httptest.NewRequest("POST", "/inbox", strings.NewReader("email\na@x\n\"b,\"\"q\"\"\"\n"))
		r.Header.Set("Content-Type", "text/csv")
		if w := e.serve(r, asAnon); w.Code != 201 || inboxCount(t, e) != before+2 {
			t.Fatalf("status %d %s", w.Code, w.Body.String())
		}
		var got string
		if err := e.db.Admin.QueryRow(context.Background(), "SELECT email FROM inbox ORDER BY id DESC LIMIT 1").Scan(&got); err != nil || got != `b,"q"` {
			t.Fatalf("last email %q %v", got, err)
		}
	})
}

// TestBodyOver64MiB: with the default cap, a body of more than 64 MiB is
// answered 413 (it used to be cut at 64 MiB and parsed, giving 400), and
// no more of it is read than the cap.
func TestBodyOver64MiB(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	body := &endless{}
	r := httptest.NewRequest("POST", "/inbox", io.LimitReader(body, 65<<20))
	r.ContentLength = -1
	w := e.serve(r, asAnon)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413: %s", w.Code, w.Body.String())
	}
	if body.n > DefaultMaxBodyBytes+64<<10 {
		t.Fatalf("read %d bytes of the body, cap %d", body.n, DefaultMaxBodyBytes)
	}
	// Announced lengths over the cap are refused without reading.
	body = &endless{}
	r = httptest.NewRequest("POST", "/inbox", io.LimitReader(body, 65<<20))
	r.ContentLength = 65 << 20
	if w := e.serve(r, asAnon); w.Code != http.StatusRequestEntityTooLarge || body.n != 0 {
		t.Fatalf("status %d after reading %d bytes", w.Code, body.n)
	}
}

// brokenBody ends before its announced length, as when a client goes away
// in the middle of sending it.
type brokenBody struct{ sent bool }

func (b *brokenBody) Read(p []byte) (int, error) {
	if b.sent {
		return 0, io.ErrUnexpectedEOF
	}
	b.sent = true
	return copy(p, `[{"email":"a`), nil
}

// TestClientGone: a body cut short and a request whose client is gone
// are not server errors: no 5xx, nothing logged as a failure.
func TestClientGone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var logged bytes.Buffer
	e.svc.log = slog.New(slog.NewTextHandler(&logged, nil))
	r := httptest.NewRequest("POST", "/inbox", &brokenBody{})
	r.ContentLength = 1000
	if w := e.serve(r, asAnon); w.Code != 400 {
		t.Fatalf("cut body: status %d %s", w.Code, w.Body.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r = httptest.NewRequest("GET", "/users", nil).WithContext(ctx)
	// 499, the status the access log and metrics count a client that left by.
	const gone = `{"code":"PGRSTX00","details":null,"hint":null,"message":"Request canceled"}`
	if w := e.serve(r, asAnon); w.Code != httpx.StatusClientClosedRequest || !jsonEqual(t, w.Body.String(), gone) {
		t.Fatalf("canceled request: status %d %s, want 499 %s", w.Code, w.Body.String(), gone)
	}
	if logged.Len() > 0 {
		t.Fatalf("logged: %s", logged.String())
	}
}

func TestMaxBodyBytesFromEnv(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, err := ConfigFromEnv(env(nil))
	if err != nil || c.MaxBodyBytes != DefaultMaxBodyBytes {
		t.Fatalf("default: %d %v", c.MaxBodyBytes, err)
	}
	c, err = ConfigFromEnv(env(map[string]string{"REST_MAX_BODY_BYTES": "1048576"}))
	if err != nil || c.MaxBodyBytes != 1<<20 {
		t.Fatalf("set: %d %v", c.MaxBodyBytes, err)
	}
	for _, bad := range []string{"0", "-1", "10MB"} {
		if _, err := ConfigFromEnv(env(map[string]string{"REST_MAX_BODY_BYTES": bad})); err == nil {
			t.Fatalf("%q accepted", bad)
		}
	}
}
