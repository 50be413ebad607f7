package telemetry

import "github.com/prometheus/client_golang/prometheus"

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
	}
	for _, c := range []prometheus.Collector{m.Sockets, m.SlotLagBytes} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
