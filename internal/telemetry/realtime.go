package telemetry

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// RealtimeMetrics are the realtime service's metrics. The service creates
// them once with NewRealtimeMetrics on the registry /metrics serves and
// keeps them up to date; their names are fixed here so the dashboard and
// deploy/README.md can rely on them.
type RealtimeMetrics struct {
	// Sockets is the number of open websocket connections: Inc when one is
	// accepted, Dec when it closes.
	Sockets prometheus.Gauge
	// SlotLagBytes is, per replication slot, how far the slot's confirmed
	// position trails the server's current WAL position, in bytes
	// (pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)); set it
	// each time the slot is polled.
	SlotLagBytes *prometheus.GaugeVec
	// nodeSockets is basalt_realtime_node_sockets, read when scraped from
	// the function ReportNodeSockets gave.
	nodeSockets *nodeSocketsCollector
}

// ReportNodeSockets makes basalt_realtime_node_sockets{node, self} report
// what fn returns when scraped: sockets that joined a channel, by node id
// of the project (this node's, self="true", and the others' as they last
// reported).
func (m *RealtimeMetrics) ReportNodeSockets(self string, fn func() map[string]int64) {
	m.nodeSockets.self.Store(&self)
	m.nodeSockets.fn.Store(&fn)
}

type nodeSocketsCollector struct {
	desc *prometheus.Desc
	self atomic.Pointer[string]
	fn   atomic.Pointer[func() map[string]int64]
}

func (c *nodeSocketsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *nodeSocketsCollector) Collect(ch chan<- prometheus.Metric) {
	fn, self := c.fn.Load(), c.self.Load()
	if fn == nil || self == nil {
		return
	}
	for node, n := range (*fn)() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), node, map[bool]string{true: "true", false: "false"}[node == *self])
	}
}

// NewRealtimeMetrics registers the realtime metrics on reg.
func NewRealtimeMetrics(reg prometheus.Registerer) (*RealtimeMetrics, error) {
	m := &RealtimeMetrics{
		Sockets: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "basalt_realtime_sockets",
			Help: "Open realtime websocket connections.",
		}),
		SlotLagBytes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "basalt_realtime_slot_lag_bytes",
			Help: "Bytes of WAL between the server's current position and what the realtime replication slot has confirmed, by slot.",
		}, []string{"slot"}),
		nodeSockets: &nodeSocketsCollector{desc: prometheus.NewDesc("basalt_realtime_node_sockets",
			"Realtime sockets that joined a channel, by node of the project: this node's (self) and the others' as they last reported.",
			[]string{"node", "self"}, nil)},
	}
	for _, c := range []prometheus.Collector{m.Sockets, m.SlotLagBytes, m.nodeSockets} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
