package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/telemetry"
)

// scrape reads /metrics until it contains want (metrics are recorded after
// the response has gone out) and returns the last body.
func (b *bundle) scrape(t *testing.T, want string) string {
	t.Helper()
	var body string
	for deadline := time.Now().Add(5 * time.Second); ; {
		var res *http.Response
		res, body = b.do(t, "GET", "/metrics", nil)
		if res.StatusCode != 200 {
			t.Fatalf("metrics status %d", res.StatusCode)
		}
		if strings.Contains(body, want) || time.Now().After(deadline) {
			return body
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestMetricsPerService(t *testing.T) {
	t.Parallel()
	// Storage reads the whole body, as an upload does.
	b := setup(t, gateway.Config{}, func(h http.Handler) gateway.Services {
		st := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			h.ServeHTTP(w, r)
		})
		return gateway.Services{REST: h, Storage: st}
	})
	hdr := map[string]string{"apikey": b.keys.AnonKey}
	upload := strings.Repeat("x", 1500)
	req, _ := http.NewRequest("POST", b.srv.URL+"/storage/v1/object/b/f.txt", strings.NewReader(upload))
	req.Header.Set("apikey", b.keys.AnonKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	<-b.svc.got
	for range 2 {
		b.do(t, "GET", "/rest/v1/items", hdr)
		<-b.svc.got
	}
	body := b.scrape(t, `basalt_http_requests_total{method="GET",service="rest",status="200"} 2`)
	for _, want := range []string{
		`basalt_http_requests_total{method="GET",service="rest",status="200"} 2`,
		`basalt_http_requests_total{method="POST",service="storage",status="200"} 1`,
		`basalt_http_request_duration_seconds_count{service="rest",status="200"} 2`,
		`basalt_http_request_duration_seconds_bucket{service="rest",status="200",le="10"} 2`,
		`basalt_http_request_duration_seconds_count{service="storage",status="200"} 1`,
		// The echo service answers {"ok":true}.
		`basalt_http_request_body_bytes_total{service="storage"} 1500`,
		`basalt_http_response_body_bytes_total{service="storage"} 11`,
		`basalt_http_response_body_bytes_total{service="rest"} 22`,
		`basalt_http_request_body_bytes_total{service="rest"} 0`,
		`basalt_http_requests_in_flight{service="rest"} 0`,
		`basalt_http_requests_in_flight{service="storage"} 0`,
		`basalt_http_requests_in_flight{service="auth"} 0`,
		// The scrape being answered is in flight itself.
		`basalt_http_requests_in_flight{service="gateway"} 1`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// TestSharedRegistry: the registry the binary passes is the one /metrics
// serves, with what others registered on it.
func TestSharedRegistry(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	rt, err := telemetry.NewRealtimeMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	b := setup(t, gateway.Config{Registry: reg}, nil)
	rt.Sockets.Inc()
	rt.Sockets.Inc()
	rt.SlotLagBytes.WithLabelValues("basalt_realtime").Set(4096)
	body := b.scrape(t, "basalt_realtime_sockets 2")
	for _, want := range []string{
		"basalt_realtime_sockets 2",
		`basalt_realtime_slot_lag_bytes{slot="basalt_realtime"} 4096`,
		`basalt_http_requests_in_flight{service="gateway"} 1`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
	if _, err := gateway.New(gateway.Config{Registry: reg}, gateway.Services{}, b.keys, nil); err == nil {
		t.Error("a second gateway on the same registry: want a duplicate registration error")
	}
}

// TestClientGoneIs499: a request whose client hangs up before the answer is
// logged and counted as 499, not as the 500 the abandoned handler wrote; a
// real 500 is still a 500.
func TestClientGoneIs499(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 1)
	svc := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			http.Error(w, "broken", http.StatusInternalServerError)
			return
		}
		started <- struct{}{}
		<-r.Context().Done()
		// What REST does with a canceled query: a 500 nobody reads.
		http.Error(w, "Request canceled", http.StatusInternalServerError)
	})
	b := setup(t, gateway.Config{}, func(http.Handler) gateway.Services { return gateway.Services{REST: svc} })

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", b.srv.URL+"/rest/v1/slow", nil)
	req.Header.Set("apikey", b.keys.AnonKey)
	req.Header.Set("X-Request-Id", "gone-client-1")
	errc := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			_ = res.Body.Close()
		}
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("client: %v, want its own cancellation", err)
	}
	line := accessLine(t, b.logs.waitFor(t, `"request_id":"gone-client-1"`), "gone-client-1")
	if line["status"] != float64(499) || line["level"] != "INFO" {
		t.Errorf("access log status %v level %v, want 499 at INFO", line["status"], line["level"])
	}

	b.do(t, "GET", "/rest/v1/fail", map[string]string{"apikey": b.keys.AnonKey})
	body := b.scrape(t, `status="500"} 1`)
	for _, want := range []string{
		`basalt_http_requests_total{method="GET",service="rest",status="499"} 1`,
		`basalt_http_request_duration_seconds_count{service="rest",status="499"} 1`,
		`basalt_http_requests_total{method="GET",service="rest",status="500"} 1`,
		`basalt_http_request_duration_seconds_count{service="rest",status="500"} 1`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// accessLine finds the access log line of request id.
func accessLine(t *testing.T, logs, id string) map[string]any {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
		if m["msg"] == "request" && m["request_id"] == id {
			return m
		}
	}
	t.Fatalf("no access log line for %s in:\n%s", id, logs)
	return nil
}

// TestRequestIDInServiceLogs: a service that logs with its request's
// context through the telemetry handler writes the gateway's request id,
// the same one the access log line carries; the access line has it once.
func TestRequestIDInServiceLogs(t *testing.T) {
	t.Parallel()
	logs := &syncWriter{w: &bytes.Buffer{}}
	log := slog.New(telemetry.NewLogHandler(slog.NewJSONHandler(logs, nil)))
	svc := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.ErrorContext(r.Context(), "service failed", "err", "boom")
		http.Error(w, "x", http.StatusInternalServerError)
	})
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(gateway.Config{}, gateway.Services{REST: svc}, keys, log)
	if err != nil {
		t.Fatal(err)
	}
	for _, sent := range []string{"trace-me-42", ""} {
		req, _ := http.NewRequest("GET", "/rest/v1/x", nil)
		req.Header.Set("apikey", keys.AnonKey)
		if sent != "" {
			req.Header.Set("X-Request-Id", sent)
		}
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, req)
		id := rec.Header().Get("X-Request-Id")
		if sent != "" && id != sent {
			t.Fatalf("X-Request-Id = %q, want %q", id, sent)
		}
		var svcLine, access map[string]any
		for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			if strings.Count(l, `"request_id"`) != 1 {
				t.Errorf("line without exactly one request_id: %s", l)
			}
			var m map[string]any
			_ = json.Unmarshal([]byte(l), &m)
			if m["request_id"] != id {
				continue
			}
			switch m["msg"] {
			case "service failed":
				svcLine = m
			case "request":
				access = m
			}
		}
		if svcLine == nil || access == nil {
			t.Fatalf("request %q: service line %v, access line %v in:\n%s", id, svcLine, access, logs.String())
		}
		if svcLine["level"] != "ERROR" || access["status"] != float64(500) {
			t.Errorf("service line %v, access line %v", svcLine, access)
		}
	}
}
