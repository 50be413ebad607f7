package gateway_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
)

// spyWriter stands for the server's own ResponseWriter and records what
// reaches its ReadFrom.
type spyWriter struct {
	http.ResponseWriter
	srcs []io.Reader
}

func (s *spyWriter) ReadFrom(src io.Reader) (int64, error) {
	s.srcs = append(s.srcs, src)
	return s.ResponseWriter.(io.ReaderFrom).ReadFrom(src)
}

// TestFileDownloadReachesReadFrom checks that io.Copy from a file through
// the gateway's writer hands the file itself to the server's ReadFrom (the
// sendfile path) instead of writing it through a buffer, and that the
// bytes still arrive and are counted.
func TestFileDownloadReachesReadFrom(t *testing.T) {
	t.Parallel()
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MB
	path := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	storage := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(path)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		if _, err := io.Copy(w, f); err != nil {
			t.Error(err)
		}
	})
	gw, err := gateway.New(gateway.Config{}, gateway.Services{Storage: storage}, keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	spies := make(chan *spyWriter, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		spy := &spyWriter{ResponseWriter: w}
		gw.ServeHTTP(spy, r)
		spies <- spy
	}))
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/storage/v1/object/b/blob", nil)
	req.Header.Set("apikey", keys.AnonKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if !bytes.Equal(body, data) {
		t.Fatalf("body: got %d bytes, want the %d of the file", len(body), len(data))
	}
	spy := <-spies
	if len(spy.srcs) != 1 {
		t.Fatalf("server ReadFrom called %d times, want once", len(spy.srcs))
	}
	// *os.File hands itself over wrapped so as to hide its WriteTo; either
	// way it must still be the open file (a syscall.Conn) for sendfile.
	if _, ok := spy.srcs[0].(syscall.Conn); !ok {
		t.Errorf("server ReadFrom got a %T, want the file itself", spy.srcs[0])
	}
}
