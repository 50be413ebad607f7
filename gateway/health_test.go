package gateway_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
)

// Liveness never asks the database; readiness and /health do.
func TestHealthLiveAndReady(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	var checks atomic.Int64
	b := setup(t, gateway.Config{Version: "v9", Health: func(context.Context) error {
		checks.Add(1)
		if down.Load() {
			return errors.New("db down")
		}
		return nil
	}}, nil)
	want := map[string]struct {
		up, down int
		body     string
	}{
		"/health":       {200, 503, "unavailable"},
		"/health/ready": {200, 503, "unavailable"},
		"/health/live":  {200, 200, `{"status":"ok","version":"v9"}`},
	}
	for _, isDown := range []bool{false, true} {
		down.Store(isDown)
		for path, w := range want {
			res, body := b.do(t, "GET", path, nil)
			code := w.up
			if isDown {
				code = w.down
			}
			if res.StatusCode != code {
				t.Errorf("db down %v: GET %s = %d %s, want %d", isDown, path, res.StatusCode, body, code)
			}
			if isDown && !strings.Contains(body, w.body) {
				t.Errorf("db down: GET %s body %s, want %s", path, body, w.body)
			}
		}
	}
	// Two checking paths, two states: four calls; liveness made none.
	if n := checks.Load(); n != 4 {
		t.Errorf("health checks run: %d, want 4", n)
	}
}

// While the process starts (migrations, pools), the port answers: alive,
// not ready, and services are unavailable; after the hand-off the gateway
// answers.
func TestStartingHandoff(t *testing.T) {
	t.Parallel()
	front := gateway.NewHandoff(gateway.Starting("v9"))
	srv := httptest.NewServer(front)
	t.Cleanup(srv.Close)
	get := func(path string) (int, string) {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, strings.TrimSpace(string(b))
	}
	for path, want := range map[string]string{
		"/health/live":  `200 {"status":"ok","version":"v9"}`,
		"/health/ready": `503 {"status":"starting","version":"v9"}`,
		"/health":       `503 {"status":"starting","version":"v9"}`,
		"/rest/v1/x":    `503 {"message":"Basalt is starting"}`,
	} {
		if code, body := get(path); strconv.Itoa(code)+" "+body != want {
			t.Errorf("starting: GET %s = %d %s, want %s", path, code, body, want)
		}
	}
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(gateway.Config{Version: "v9"}, gateway.Services{}, keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	front.Set(gw)
	if code, body := get("/health/ready"); code != 200 || body != `{"status":"ok","version":"v9"}` {
		t.Errorf("after hand-off: /health/ready = %d %s", code, body)
	}
}
