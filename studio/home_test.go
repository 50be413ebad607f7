package studio

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// countingAPI answers the probes as the gateway would and counts every
// request in basalt_http_requests_total, as the gateway does.
type countingAPI struct {
	requests *prometheus.CounterVec
}

func (a countingAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	svc := "gateway"
	for _, s := range []string{"auth", "rest", "storage", "realtime", "functions"} {
		if strings.HasPrefix(r.URL.Path, "/"+s+"/") {
			svc = s
		}
	}
	status := 200
	switch svc {
	case "realtime":
		status = 422
	case "storage":
		status = 503
	case "functions":
		status = 404
	}
	a.requests.WithLabelValues(svc, r.Method, strconv.Itoa(status)).Inc()
	w.WriteHeader(status)
	if svc == "functions" {
		_, _ = io.WriteString(w, `{"message":"no Route matched with those values"}`)
	}
}

// TestHome: each service's health, the clients' request counters without
// Studio's own probes, and the database's figures.
func TestHome(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	reg := prometheus.NewRegistry()
	api := countingAPI{prometheus.NewCounterVec(prometheus.CounterOpts{Name: "basalt_http_requests_total"}, []string{"service", "method", "status"})}
	reg.MustRegister(api.requests)
	c := e.signInWith(api, reg)
	// Clients' traffic: 3 auth calls, one of them failing.
	api.requests.WithLabelValues("auth", "GET", "200").Add(2)
	api.requests.WithLabelValues("auth", "POST", "500").Inc()
	for range 2 { // twice: the second reading subtracts both rounds of probes
		var h struct {
			Services []serviceHealth             `json:"services"`
			Requests map[string]*serviceRequests `json:"requests"`
			Database map[string]any              `json:"database"`
		}
		c.json("GET", "/api/home", nil, 200, &h)
		up := map[string]bool{}
		for _, s := range h.Services {
			up[s.Name] = s.Up
		}
		want := map[string]bool{"gateway": true, "auth": true, "rest": true, "realtime": true, "storage": false, "functions": false}
		for k, v := range want {
			if up[k] != v {
				t.Errorf("%s up = %v, want %v (%+v)", k, up[k], v, h.Services)
			}
		}
		if a := h.Requests["auth"]; a == nil || a.Total != 3 || a.Errors5x != 1 {
			t.Errorf("auth requests: %+v", a)
		}
		if r := h.Requests["realtime"]; r == nil || r.Total != 0 || r.Errors4x != 0 {
			t.Errorf("realtime counts Studio's probes: %+v", r)
		}
		if h.Database["size_bytes"].(float64) <= 0 || h.Database["connections"].(float64) < 1 || h.Database["max_connections"].(float64) < 1 {
			t.Errorf("database: %v", h.Database)
		}
	}
}
