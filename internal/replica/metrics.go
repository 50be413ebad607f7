package replica

import "github.com/prometheus/client_golang/prometheus"

// metrics are registered on the gateway's registry, next to the HTTP ones.
type metrics struct {
	reads     *prometheus.CounterVec
	toReplica prometheus.Counter // reads{target="replica"}, looked up once
	fallbacks *prometheus.CounterVec
	pinned    prometheus.Counter
	up        prometheus.Gauge
	lag       prometheus.Gauge
}

// fallbackReasons are every value of the reason label, shown from zero so
// a rate() has a series before the first fallback.
var fallbackReasons = []string{"lag", "unavailable", "error"}

func newMetrics() *metrics {
	m := &metrics{
		reads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "basalt_read_replica_reads_total",
			Help: "Read-only REST requests by the pool they were sent to (replica or primary).",
		}, []string{"target"}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "basalt_read_replica_fallbacks_total",
			Help: "Reads sent to the primary because of the replica: lag over the maximum, unavailable, or an error mid-request (then retried on the primary).",
		}, []string{"reason"}),
		pinned: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "basalt_read_replica_pinned_reads_total",
			Help: "Reads sent to the primary so that callers see their own recent writes.",
		}),
		up: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "basalt_read_replica_up",
			Help: "1 when the last poll reached the read replica and it is a standby, else 0.",
		}),
		lag: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "basalt_read_replica_lag_seconds",
			Help: "How long ago the primary had written the WAL the replica has replayed, at the last poll.",
		}),
	}
	m.toReplica = m.reads.WithLabelValues("replica")
	m.reads.WithLabelValues("primary")
	for _, r := range fallbackReasons {
		m.fallbacks.WithLabelValues(r)
	}
	return m
}

// fallback counts a read that went to the primary because of the replica.
func (m *metrics) fallback(reason string) {
	m.fallbacks.WithLabelValues(reason).Inc()
	m.reads.WithLabelValues("primary").Inc()
}

func (m *metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.reads, m.fallbacks, m.pinned, m.up, m.lag}
}
