package storage_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/storage"
)

// syncBuffer is a log sink the server's goroutines write to while the test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// lines returns the JSON log lines written so far.
func (s *syncBuffer) lines() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(s.b.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// TestClientGoneIsNotAnError checks the log of a client that leaves in the
// middle of an upload or a download: the storage line says 499 at info
// level, as the gateway's access line counts it, and nothing is logged as
// an error or a warning.
func TestClientGoneIsNotAnError(t *testing.T) {
	t.Parallel()
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, kind)
			e.bucket("media", false)
			// 16 MiB: more than the server's socket send buffer can take
			// (Linux's tcp_wmem tops out at 4 MiB) plus the download
			// client's small receive buffer, so leaving after 1 KiB always
			// leaves most of the object unsent.
			big := bytes.Repeat([]byte("0123456789abcdef"), 16<<20/16)
			if rec := e.put(e.service, "media", "big.bin", "application/octet-stream", big, false); rec.Code != http.StatusOK {
				t.Fatalf("fixture upload: %d %s", rec.Code, rec.Body)
			}
			logs := &syncBuffer{}
			log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			backend := &readingBackend{Backend: e.backend, reading: make(chan struct{})}
			svc, err := storage.New(storage.Config{}, e.db.Admin, e.db.User, e.keys, backend, storage.WithLogger(log))
			if err != nil {
				t.Fatal(err)
			}
			gw, err := gateway.New(gateway.Config{}, gateway.Services{Storage: svc}, e.keys, log)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(gw)
			defer srv.Close()
			addr := strings.TrimPrefix(srv.URL, "http://")
			auth := fmt.Sprintf("apikey: %s\r\nAuthorization: Bearer %s\r\n", e.service, e.service)

			// Upload: the client announces 4 MiB, sends 64 KiB and leaves.
			up := dialRaw(t, addr)
			fmt.Fprintf(up, "POST /storage/v1/object/media/new.bin HTTP/1.1\r\nHost: basalt\r\n%sContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", auth, len(big))
			_, _ = up.Write(big[:64<<10])
			// Leave once the handler streams the body into the backend.
			select {
			case <-backend.reading:
			case <-time.After(10 * time.Second):
				t.Fatal("the upload's bytes never reached the backend")
			}
			_ = up.Close()
			if l := waitLine(t, logs, "POST", "/storage/v1/object/media/new.bin"); l["status"] != float64(499) {
				t.Errorf("upload's access line = %v, want status 499", l)
			}

			// Download: the client reads the headers and a little, then leaves.
			down := dialSmallWindow(t, addr)
			fmt.Fprintf(down, "GET /storage/v1/object/media/big.bin HTTP/1.1\r\nHost: basalt\r\n%s\r\n", auth)
			br := bufio.NewReader(down)
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != http.StatusOK {
				t.Fatalf("download = %d", res.StatusCode)
			}
			if _, err := io.ReadFull(res.Body, make([]byte, 1024)); err != nil {
				t.Fatal(err)
			}
			_ = down.(*net.TCPConn).SetLinger(0) // a reset, as a closed browser tab
			_ = down.Close()
			// The headers went out: the access line keeps their 200, with
			// fewer bytes than the object has.
			if l := waitLine(t, logs, "GET", "/storage/v1/object/media/big.bin"); l["status"] != float64(200) || l["bytes"].(float64) >= float64(len(big)) {
				t.Errorf("download's access line = %v, want status 200 and part of the bytes", l)
			}

			var upload, download bool
			for _, l := range logs.lines() {
				if l["level"] == "ERROR" || l["level"] == "WARN" {
					t.Errorf("%s line for a client that went away: %v", l["level"], l)
				}
				switch l["msg"] {
				case "storage request abandoned by the client":
					upload = true
					if l["level"] != "INFO" || l["status"] != float64(499) || l["path"] != "/object/media/new.bin" {
						t.Errorf("upload line = %v, want level INFO and status 499", l)
					}
				case "storage: download abandoned by the client":
					download = true
					if l["level"] != "INFO" {
						t.Errorf("download line = %v, want level INFO", l)
					}
				}
			}
			if !upload || !download {
				t.Errorf("upload line %v, download line %v; log:\n%v", upload, download, logs.lines())
			}
		})
	}
}

// readingBackend closes reading once a Put has read the first bytes of
// what it stores: the sign that an upload's body is streaming.
type readingBackend struct {
	storage.Backend
	once    sync.Once
	reading chan struct{}
}

func (b *readingBackend) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	return b.Backend.Put(ctx, key, readSignal{r, b}, size, contentType)
}

type readSignal struct {
	r io.Reader
	b *readingBackend
}

func (s readSignal) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.b.once.Do(func() { close(s.b.reading) })
	}
	return n, err
}

// dialRaw opens a plain TCP connection to the server.
func dialRaw(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// dialSmallWindow connects with a 64 KiB receive buffer fixed before the
// handshake, so the kernel cannot grow the window and take in the whole
// response on the client's behalf.
func dialSmallWindow(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		if err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<10)
		}); err != nil {
			return err
		}
		return serr
	}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// waitLine waits for the gateway's access line of a request.
func waitLine(t *testing.T, logs *syncBuffer, method, path string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, l := range logs.lines() {
			if l["msg"] == "request" && l["method"] == method && l["path"] == path {
				return l
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no access line for %s %s", method, path)
	return nil
}
