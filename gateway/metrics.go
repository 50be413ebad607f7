package gateway

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics holds the gateway's Prometheus collectors on a registry of its own
// (not the global one), so several gateways can live in one test binary.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "basalt_http_requests_total",
			Help: "HTTP requests handled by the gateway, by service, method and status code.",
		}, []string{"service", "method", "status"}),
		// Buckets from 1 ms to 10 s: API calls are mostly a few ms; the top
		// buckets catch slow queries and uploads.
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "basalt_http_request_duration_seconds",
			Help:    "Time from request arrival to the end of the handler, by service and status code.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"service", "status"}),
	}
	// Runtime and process collectors make one scrape enough to see memory,
	// goroutines and file descriptors next to the request figures.
	m.reg.MustRegister(m.requests, m.duration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observe(service, method string, status int, d time.Duration) {
	code := itoa(status)
	m.requests.WithLabelValues(service, normMethod(method), code).Inc()
	m.duration.WithLabelValues(service, code).Observe(d.Seconds())
}

// normMethod bounds the method label's cardinality.
func normMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "OTHER"
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
