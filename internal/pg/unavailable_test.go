package pg_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// closedPortURL is a database URL on a loopback port nobody listens on.
func closedPortURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	return fmt.Sprintf("postgres://nobody@127.0.0.1:%d/db?sslmode=disable&connect_timeout=5", port)
}

func TestUnavailable(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	ctx := context.Background()
	// Each case produces its error from a real database or socket.
	tests := []struct {
		name        string
		err         func(t *testing.T) error
		want        bool
		wantConnect bool
	}{
		{name: "no error", err: func(*testing.T) error { return nil }},
		{name: "a statement error is the request's fault", err: func(t *testing.T) error {
			_, err := db.Admin.Exec(ctx, `SELEC 1`)
			return err
		}},
		{name: "division by zero is the request's fault", err: func(t *testing.T) error {
			_, err := db.Admin.Exec(ctx, `SELECT 1/0`)
			return err
		}},
		{name: "connection refused", want: true, wantConnect: true, err: func(t *testing.T) error {
			_, err := pg.Connect(ctx, closedPortURL(t), nil)
			return fmt.Errorf("list buckets: %w", err)
		}},
		{name: "a canceled request is not an outage", err: func(t *testing.T) error {
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			_, err := pgx.Connect(cctx, closedPortURL(t))
			return err
		}},
		{name: "session terminated by the server (57P01)", want: true, err: func(t *testing.T) error {
			conn, err := pgx.Connect(ctx, db.AdminURL)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			_, err = conn.Exec(ctx, `SELECT pg_terminate_backend(pg_backend_pid())`)
			return err
		}},
		{name: "a connection that is already gone", want: true, err: func(t *testing.T) error {
			conn, err := pgx.Connect(ctx, db.AdminURL)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			_, _ = conn.Exec(ctx, `SELECT pg_terminate_backend(pg_backend_pid())`)
			_, err = conn.Exec(ctx, `SELECT 1`)
			return err
		}},
		{name: "the connection broke mid-exchange", want: true, err: func(t *testing.T) error {
			url, cut := cuttableURL(t, db.Name)
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			time.AfterFunc(100*time.Millisecond, cut)
			// pgx reports a read that breaks as a bare unexpected EOF.
			var v any
			err = conn.QueryRow(ctx, `SELECT pg_sleep(5)`).Scan(&v)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("a broken read gave %v, want unexpected EOF", err)
			}
			return fmt.Errorf("read rows: %w", err)
		}},
		{name: "an HTTP call that breaks is not the database's", err: func(t *testing.T) error {
			// A payment provider or S3 endpoint that hangs up.
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			go func() {
				if c, err := l.Accept(); err == nil {
					// Hang up once the request is in: a close before it
					// races the client's bookkeeping, which then reports
					// "server closed idle connection" instead of EOF.
					_, _ = http.ReadRequest(bufio.NewReader(c))
					_ = c.Close()
				}
			}()
			_, err = http.Get("http://" + l.Addr().String() + "/verify")
			if !errors.Is(err, io.EOF) {
				t.Fatalf("the hang-up gave %v, want EOF", err)
			}
			return fmt.Errorf("verify payment: %w", err)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err(t)
			if got := pg.Unavailable(err); got != tt.want {
				t.Errorf("Unavailable(%v) = %v, want %v", err, got, tt.want)
			}
			if got := pg.ConnectFailed(err); got != tt.wantConnect {
				t.Errorf("ConnectFailed(%v) = %v, want %v", err, got, tt.wantConnect)
			}
		})
	}
	if pg.Unavailable(context.Canceled) || pg.Unavailable(errors.New("bucket not found")) {
		t.Error("a plain error counted as an outage")
	}
}

// cuttableURL is a URL to database name through a TCP relay to the test
// cluster's socket; cut drops the relayed connections, as a server that
// dies or a network that fails does.
func cuttableURL(t *testing.T, name string) (url string, cut func()) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	sock := filepath.Join(pgtest.Cluster(t).SocketDir, ".s.PGSQL.5432")
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("unix", sock)
			if err != nil {
				_ = c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, up)
			mu.Unlock()
			go func() { _, _ = io.Copy(up, c) }()
			go func() { _, _ = io.Copy(c, up) }()
		}
	}()
	cut = func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	}
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", l.Addr(), name), cut
}
