package testfns_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/testfns"
	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
)

// server serves the registry behind the gateway, as basalt dev mounts it.
func server(t *testing.T) string {
	t.Helper()
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	fn, err := functions.New(functions.Config{Keys: keys, GatewayCORS: true}, testfns.Functions()...)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(gateway.Config{}, gateway.Services{Functions: fn}, keys, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)
	return srv.URL + "/functions/v1"
}

type mirrored struct {
	URL     string      `json:"url"`
	Method  string      `json:"method"`
	Headers [][2]string `json:"headers"`
	Body    any         `json:"body"`
}

func call(t *testing.T, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

func TestHello(t *testing.T) {
	t.Parallel()
	base := server(t)
	for _, m := range []string{"GET", "POST", "PUT"} {
		req, _ := http.NewRequest(m, base+"/hello", strings.NewReader(""))
		// Callers' tokens are the suite's own: verify_jwt is off.
		req.Header.Set("Authorization", "Bearer not.a.project-token")
		res, b := call(t, req)
		if res.StatusCode != 200 || string(b) != "Hello World" || res.Header.Get("Content-Type") != "text/plain;charset=UTF-8" {
			t.Errorf("%s: %d %q %q", m, res.StatusCode, b, res.Header.Get("Content-Type"))
		}
	}
}

// TestMirror: the mirror reports URL (against the relay's origin, with the
// query), method, headers (lower-cased, sorted, host included) and the
// body read as response-type asks.
func TestMirror(t *testing.T) {
	t.Parallel()
	base := server(t)
	mirror := func(t *testing.T, method, path, contentType, responseType string, body io.Reader) mirrored {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, body)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if responseType != "" {
			req.Header.Set("response-type", responseType)
		}
		req.Header.Set("Custom-Header", "check me")
		req.Header.Set("x-region", "ap-northeast-1")
		res, b := call(t, req)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%d %s %s", res.StatusCode, res.Header.Get("Content-Type"), b)
		}
		var m mirrored
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}

	m := mirror(t, "POST", "/mirror?forceFunctionRegion=ap-northeast-1&a=1", "", "", nil)
	if m.URL != testfns.Origin+"/mirror?forceFunctionRegion=ap-northeast-1&a=1" || m.Method != "POST" || m.Body != "" {
		t.Errorf("plain: %+v", m)
	}
	var names []string
	want := map[string]string{"custom-header": "check me", "x-region": "ap-northeast-1"}
	for _, h := range m.Headers {
		names = append(names, h[0])
		if v, ok := want[h[0]]; ok && v == h[1] {
			delete(want, h[0])
		}
	}
	if len(want) > 0 || names[0] > names[len(names)-1] || !strings.Contains(strings.Join(names, ","), "host") {
		t.Errorf("headers %v lack %v", m.Headers, want)
	}

	if m := mirror(t, "PATCH", "/mirror/sub", "application/json", "json", strings.NewReader(`{"one":"x","num":11,"flag":false}`)); !cmp.Equal(m.Body, map[string]any{"one": "x", "num": 11.0, "flag": false}) || m.Method != "PATCH" || m.URL != testfns.Origin+"/mirror/sub" {
		t.Errorf("json: %+v", m)
	}
	if m := mirror(t, "POST", "/mirror", "application/octet-stream", "arrayBuffer", strings.NewReader("raw bytes")); m.Body != "raw bytes" {
		t.Errorf("arrayBuffer: %+v", m.Body)
	}

	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	for _, kv := range [][2]string{{"zeta", "1"}, {"alpha", "2"}, {"mid", "3"}} {
		_ = mw.WriteField(kv[0], kv[1])
	}
	_ = mw.Close()
	wantForm := []any{[]any{"zeta", "1"}, []any{"alpha", "2"}, []any{"mid", "3"}}
	if m := mirror(t, "POST", "/mirror", mw.FormDataContentType(), "form", &form); !cmp.Equal(m.Body, wantForm) {
		t.Errorf("multipart form: %v", m.Body)
	}
	if m := mirror(t, "POST", "/mirror", "application/x-www-form-urlencoded", "form", strings.NewReader("zeta=1&alpha=2&mid=3")); !cmp.Equal(m.Body, wantForm) {
		t.Errorf("urlencoded form: %v", m.Body)
	}
}

// TestSlow: the slow function outlasts a caller's short time-out.
func TestSlow(t *testing.T) {
	t.Parallel()
	base := server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/slow", nil)
	start := time.Now()
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the caller's deadline", err)
	}
	if time.Since(start) > testfns.SlowDelay {
		t.Errorf("took %v", time.Since(start))
	}
}

// TestHijack: the function takes the connection over with a 101, then
// writes "Hello" and closes it.
func TestHijack(t *testing.T) {
	t.Parallel()
	base := server(t)
	host := strings.TrimPrefix(strings.TrimSuffix(base, "/functions/v1"), "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, "POST /functions/v1/hijack HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\nping"); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(conn)
	status, err := rd.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 101") {
		t.Fatalf("status line %q (%v)", status, err)
	}
	rest, _ := io.ReadAll(rd)
	if !strings.HasSuffix(string(rest), "\r\nHello") {
		t.Errorf("after the status line: %q", rest)
	}
}
