package gateway_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
)

// TestUpgradeThroughGateway checks that a service can take over the
// connection (websockets) and stream (Flush) through the gateway's writer.
func TestUpgradeThroughGateway(t *testing.T) {
	t.Parallel()
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	realtime := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stream" {
			rc := http.NewResponseController(w)
			_, _ = io.WriteString(w, "first\n")
			if err := rc.Flush(); err != nil {
				t.Errorf("flush: %v", err)
			}
			_, _ = io.WriteString(w, "second\n")
			return
		}
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		defer conn.Close()
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
		_ = rw.Flush()
		line, _ := rw.ReadString('\n')
		_, _ = rw.WriteString("echo:" + line)
		_ = rw.Flush()
	})
	gw, err := gateway.New(gateway.Config{}, gateway.Services{Realtime: realtime}, keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	defer srv.Close()

	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "GET /realtime/v1/websocket?apikey="+keys.AnonKey+"&vsn=1.0.0 HTTP/1.1\r\nHost: x\r\n"+
		"Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d, want 101", res.StatusCode)
	}
	_, _ = io.WriteString(conn, "ping\n")
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if got, _ := br.ReadString('\n'); got != "echo:ping\n" {
		t.Errorf("after upgrade got %q", got)
	}

	req, _ := http.NewRequest("GET", srv.URL+"/realtime/v1/stream", nil)
	req.Header.Set("apikey", keys.AnonKey)
	sres, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(sres.Body)
	_ = sres.Body.Close()
	if string(body) != "first\nsecond\n" {
		t.Errorf("streamed body %q", body)
	}
}
