package telemetry

import (
	"sort"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// PoolCollector exposes the statistics of named connection pools (admin,
// user, …) as Prometheus metrics, read from pool.Stat() at scrape time: no
// work is done per query.
type PoolCollector struct {
	names []string
	pools map[string]*pgxpool.Pool
	desc  poolDescs
}

var _ prometheus.Collector = (*PoolCollector)(nil)

// NewPoolCollector collects the pools under their names (the pool label).
func NewPoolCollector(pools map[string]*pgxpool.Pool) *PoolCollector {
	c := &PoolCollector{pools: map[string]*pgxpool.Pool{}, desc: newPoolDescs()}
	for n, p := range pools {
		if p != nil {
			c.names = append(c.names, n)
			c.pools[n] = p
		}
	}
	sort.Strings(c.names)
	return c
}

func poolDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc("basalt_db_pool_"+name, help, []string{"pool"}, nil)
}

// poolDescs describe the pool metrics; they are made with the collector,
// not at package initialisation.
type poolDescs struct {
	acquires, acquireSeconds, emptyAcquires, emptyAcquireSeconds, canceledAcquires, newConns,
	total, idle, acquired, max *prometheus.Desc
}

func newPoolDescs() poolDescs {
	return poolDescs{
		acquires: poolDesc("acquires_total",
			"Connections acquired from the pool."),
		acquireSeconds: poolDesc("acquire_duration_seconds_total",
			"Time spent acquiring connections, waits included."),
		emptyAcquires: poolDesc("empty_acquires_total",
			"Acquires that found no idle connection and waited for one to be opened or released."),
		emptyAcquireSeconds: poolDesc("empty_acquire_wait_seconds_total",
			"Time spent waiting by the acquires that found no idle connection."),
		canceledAcquires: poolDesc("canceled_acquires_total",
			"Acquires abandoned because their context ended (client gone, acquisition timeout)."),
		newConns: poolDesc("new_connections_total",
			"Connections the pool opened."),
		total: poolDesc("connections",
			"Connections the pool holds now: idle, in use and being opened."),
		idle: poolDesc("idle_connections",
			"Idle connections in the pool."),
		acquired: poolDesc("acquired_connections",
			"Connections in use by requests."),
		max: poolDesc("max_connections",
			"The pool's size limit (pool_max_conns)."),
	}
}

// Describe sends the metric descriptions.
func (c *PoolCollector) Describe(ch chan<- *prometheus.Desc) {
	d := &c.desc
	for _, desc := range []*prometheus.Desc{d.acquires, d.acquireSeconds, d.emptyAcquires, d.emptyAcquireSeconds,
		d.canceledAcquires, d.newConns, d.total, d.idle, d.acquired, d.max} {
		ch <- desc
	}
}

// Collect reads every pool's statistics.
func (c *PoolCollector) Collect(ch chan<- prometheus.Metric) {
	d := &c.desc
	for _, n := range c.names {
		s := c.pools[n].Stat()
		counter := func(desc *prometheus.Desc, v float64) {
			ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, v, n)
		}
		gauge := func(desc *prometheus.Desc, v float64) {
			ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, n)
		}
		counter(d.acquires, float64(s.AcquireCount()))
		counter(d.acquireSeconds, s.AcquireDuration().Seconds())
		counter(d.emptyAcquires, float64(s.EmptyAcquireCount()))
		counter(d.emptyAcquireSeconds, s.EmptyAcquireWaitTime().Seconds())
		counter(d.canceledAcquires, float64(s.CanceledAcquireCount()))
		counter(d.newConns, float64(s.NewConnsCount()))
		gauge(d.total, float64(s.TotalConns()))
		gauge(d.idle, float64(s.IdleConns()))
		gauge(d.acquired, float64(s.AcquiredConns()))
		gauge(d.max, float64(s.MaxConns()))
	}
}
