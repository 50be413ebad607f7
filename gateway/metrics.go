package gateway

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics holds the gateway's Prometheus collectors on a registry that is
// not the global one, so several gateways can live in one test binary.
// Every series carries the service label (auth, rest, realtime, storage,
// functions, or gateway for the gateway's own endpoints and unrouted paths).
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	inFlight  *prometheus.GaugeVec
	bytesIn   *prometheus.CounterVec
	bytesOut  *prometheus.CounterVec
	byService map[string]serviceMetrics
}

// serviceMetrics are one service's byte counters, looked up once.
type serviceMetrics struct{ in, out prometheus.Counter }

// services are the values of the service label, known up front so the byte
// counters and the in-flight gauge read 0 before the first request.
var services = []string{"gateway", "auth", "rest", "realtime", "storage", "functions"}

func newMetrics(reg *prometheus.Registry) (*metrics, error) {
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	m := &metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "basalt_http_requests_total",
			Help: "HTTP requests handled by the gateway, by service, method and status code (499: the client went away first).",
		}, []string{"service", "method", "status"}),
		// Buckets from 1 ms to 10 s: API calls are mostly a few ms; the top
		// buckets catch slow queries and uploads.
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "basalt_http_request_duration_seconds",
			Help:    "Time from request arrival to the end of the handler, by service and status code.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"service", "status"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "basalt_http_requests_in_flight",
			Help: "Requests being handled now, by service (websockets count until they close).",
		}, []string{"service"}),
		bytesIn: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "basalt_http_request_body_bytes_total",
			Help: "Request body bytes read by the services (uploads for storage), by service.",
		}, []string{"service"}),
		bytesOut: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "basalt_http_response_body_bytes_total",
			Help: "Response body bytes sent (downloads for storage), by service.",
		}, []string{"service"}),
		byService: map[string]serviceMetrics{},
	}
	for _, s := range services {
		m.byService[s] = serviceMetrics{in: m.bytesIn.WithLabelValues(s), out: m.bytesOut.WithLabelValues(s)}
		m.inFlight.WithLabelValues(s)
	}
	// Runtime and process collectors make one scrape enough to see memory,
	// goroutines and file descriptors next to the request figures.
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.inFlight, m.bytesIn, m.bytesOut,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// observe records one finished request.
func (m *metrics) observe(service, method string, status int, d time.Duration, in, out int64) {
	code := itoa(status)
	m.requests.WithLabelValues(service, normMethod(method), code).Inc()
	m.duration.WithLabelValues(service, code).Observe(d.Seconds())
	m.inFlight.WithLabelValues(service).Dec()
	sm, ok := m.byService[service]
	if !ok {
		sm = serviceMetrics{in: m.bytesIn.WithLabelValues(service), out: m.bytesOut.WithLabelValues(service)}
	}
	sm.in.Add(float64(in))
	sm.out.Add(float64(out))
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
