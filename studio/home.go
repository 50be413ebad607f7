package studio

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// probe is one service's health check through the API, in process.
type probe struct{ name, method, path, body string }

var probes = []probe{
	{"gateway", "GET", "/health", ""},
	{"auth", "GET", "/auth/v1/health", ""},
	{"rest", "GET", "/rest/v1/", ""},
	{"storage", "GET", "/storage/v1/bucket", ""},
	// An empty broadcast is refused at once (422) and sends nothing.
	{"realtime", "POST", "/realtime/v1/api/broadcast", `{"messages":[]}`},
	{"functions", "GET", "/functions/v1/_internal/health", ""},
}

// serviceHealth is a probe's outcome.
type serviceHealth struct {
	Name      string  `json:"name"`
	Up        bool    `json:"up"`
	Status    int     `json:"status"`
	LatencyMS float64 `json:"latency_ms"`
	Detail    string  `json:"detail,omitempty"`
}

// callAPI sends a request to the API in process with the service-role key,
// as the server's own call: the key never leaves this process.
func (s *Service) callAPI(ctx context.Context, method, path string, body io.Reader, header http.Header, clientIP string) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, method, path, body)
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("apikey", s.d.Keys.ServiceRoleKey)
	req.Header.Set("Authorization", "Bearer "+s.d.Keys.ServiceRoleKey)
	req.RemoteAddr = clientIP + ":0"
	rec := httptest.NewRecorder()
	s.d.API.ServeHTTP(rec, req)
	return rec
}

// checkServices probes every service at once. A service is up when it
// answers below 500 and the gateway routed the call (a service that is
// not mounted answers the gateway's "no Route matched").
func (s *Service) checkServices(ctx context.Context) []serviceHealth {
	out := make([]serviceHealth, len(probes))
	if s.d.API == nil {
		for i, p := range probes {
			out[i] = serviceHealth{Name: p.name, Detail: "not reachable from Studio"}
		}
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i, p := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			var body io.Reader
			if p.body != "" {
				body = strings.NewReader(p.body)
			}
			rec := s.callAPI(ctx, p.method, p.path, body, http.Header{"Content-Type": {"application/json"}}, "127.0.0.1")
			s.probes.count(p.name, rec.Code)
			h := serviceHealth{Name: p.name, Status: rec.Code, LatencyMS: float64(time.Since(start).Microseconds()) / 1000}
			answer := rec.Body.String()
			h.Up = rec.Code < 500 && !strings.Contains(answer, "no Route matched")
			if !h.Up {
				h.Detail = strings.TrimSpace(answer)
				if len(h.Detail) > 300 {
					h.Detail = h.Detail[:300]
				}
			}
			out[i] = h
		}()
	}
	wg.Wait()
	return out
}

// serviceRequests is one service's request counters since start.
type serviceRequests struct {
	Total    float64 `json:"total"`
	Errors5x float64 `json:"errors_5xx"`
	Errors4x float64 `json:"errors_4xx"`
	InFlight float64 `json:"in_flight"`
}

// readMetrics sums what /metrics exports per service, and a few of the
// process's own figures.
func (s *Service) readMetrics() (map[string]*serviceRequests, map[string]float64) {
	reqs := map[string]*serviceRequests{}
	proc := map[string]float64{}
	if s.d.Metrics == nil {
		return reqs, proc
	}
	families, err := s.d.Metrics.Gather()
	if err != nil {
		s.log.Warn("studio: gather metrics", "err", err)
	}
	get := func(svc string) *serviceRequests {
		if reqs[svc] == nil {
			reqs[svc] = &serviceRequests{}
		}
		return reqs[svc]
	}
	label := func(m *dto.Metric, name string) string {
		for _, l := range m.GetLabel() {
			if l.GetName() == name {
				return l.GetValue()
			}
		}
		return ""
	}
	for _, f := range families {
		switch f.GetName() {
		case "basalt_http_requests_total":
			for _, m := range f.GetMetric() {
				r := get(label(m, "service"))
				v := m.GetCounter().GetValue()
				r.Total += v
				switch st := label(m, "status"); {
				case strings.HasPrefix(st, "5"):
					r.Errors5x += v
				case strings.HasPrefix(st, "4"):
					r.Errors4x += v
				}
			}
		case "basalt_http_requests_in_flight":
			for _, m := range f.GetMetric() {
				get(label(m, "service")).InFlight = m.GetGauge().GetValue()
			}
		case "process_resident_memory_bytes", "go_goroutines", "basalt_realtime_sockets", "basalt_realtime_slot_lag_bytes":
			for _, m := range f.GetMetric() {
				if g := m.GetGauge(); g != nil {
					proc[f.GetName()] += g.GetValue()
				}
			}
		}
	}
	// The probes are Studio's own calls: the figures are the clients'.
	for svc, n := range s.probes.snapshot() {
		if r := reqs[svc]; r != nil {
			r.Total = max(0, r.Total-n[0])
			r.Errors4x = max(0, r.Errors4x-n[1])
			r.Errors5x = max(0, r.Errors5x-n[2])
		}
	}
	return reqs, proc
}

// probeCounts counts the health probes this Studio sent, per service:
// all, 4xx, 5xx.
type probeCounts struct {
	mu sync.Mutex
	n  map[string][3]float64
}

func (p *probeCounts) count(svc string, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == nil {
		p.n = map[string][3]float64{}
	}
	c := p.n[svc]
	c[0]++
	switch {
	case status >= 500:
		c[2]++
	case status >= 400:
		c[1]++
	}
	p.n[svc] = c
}

func (p *probeCounts) snapshot() map[string][3]float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string][3]float64, len(p.n))
	for k, v := range p.n {
		out[k] = v
	}
	return out
}

// home answers the Home screen: each service's health, the request
// counters (the app turns two readings into rates), the database's size
// and connections.
func (s *Service) home(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	services := s.checkServices(ctx)
	reqs, proc := s.readMetrics()
	var db json.RawMessage
	err := s.d.Admin.QueryRow(ctx, `SELECT json_build_object(
	  'name', current_database(),
	  'size_bytes', pg_database_size(current_database()),
	  'version', current_setting('server_version'),
	  'max_connections', current_setting('max_connections')::int,
	  'connections', (SELECT count(*) FROM pg_stat_activity WHERE datname IS NOT NULL),
	  'active', (SELECT count(*) FROM pg_stat_activity WHERE state = 'active'),
	  'idle', (SELECT count(*) FROM pg_stat_activity WHERE state = 'idle'),
	  'idle_in_transaction', (SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'),
	  'started_at', pg_postmaster_start_time())`).Scan(&db)
	if err != nil {
		return err
	}
	return okJSON(w, map[string]any{
		"at": time.Now().UTC(), "services": services, "requests": reqs, "process": proc, "database": db,
	})
}
