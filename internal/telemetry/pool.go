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
}

var _ prometheus.Collector = (*PoolCollector)(nil)

// NewPoolCollector collects the pools under their names (the pool label).
func NewPoolCollector(pools map[string]*pgxpool.Pool) *PoolCollector {
	c := &PoolCollector{pools: map[string]*pgxpool.Pool{}}
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

var (
	poolAcquires = poolDesc("acquires_total",
		"Connections acquired from the pool.")
	poolAcquireSeconds = poolDesc("acquire_duration_seconds_total",
		"Time spent acquiring connections, waits included.")
	poolEmptyAcquires = poolDesc("empty_acquires_total",
		"Acquires that found no idle connection and waited for one to be opened or released.")
	poolEmptyAcquireSeconds = poolDesc("empty_acquire_wait_seconds_total",
		"Time spent waiting by the acquires that found no idle connection.")
	poolCanceledAcquires = poolDesc("canceled_acquires_total",
		"Acquires abandoned because their context ended (client gone, acquisition timeout).")
	poolNewConns = poolDesc("new_connections_total",
		"Connections the pool opened.")
	poolTotal = poolDesc("connections",
		"Connections the pool holds now: idle, in use and being opened.")
	poolIdle = poolDesc("idle_connections",
		"Idle connections in the pool.")
	poolAcquired = poolDesc("acquired_connections",
		"Connections in use by requests.")
	poolMax = poolDesc("max_connections",
		"The pool's size limit (pool_max_conns).")
)

// Describe sends the metric descriptions.
func (c *PoolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolAcquires, poolAcquireSeconds, poolEmptyAcquires, poolEmptyAcquireSeconds,
		poolCanceledAcquires, poolNewConns, poolTotal, poolIdle, poolAcquired, poolMax} {
		ch <- d
	}
}

// Collect reads every pool's statistics.
func (c *PoolCollector) Collect(ch chan<- prometheus.Metric) {
	for _, n := range c.names {
		s := c.pools[n].Stat()
		counter := func(d *prometheus.Desc, v float64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, n)
		}
		gauge := func(d *prometheus.Desc, v float64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, n)
		}
		counter(poolAcquires, float64(s.AcquireCount()))
		counter(poolAcquireSeconds, s.AcquireDuration().Seconds())
		counter(poolEmptyAcquires, float64(s.EmptyAcquireCount()))
		counter(poolEmptyAcquireSeconds, s.EmptyAcquireWaitTime().Seconds())
		counter(poolCanceledAcquires, float64(s.CanceledAcquireCount()))
		counter(poolNewConns, float64(s.NewConnsCount()))
		gauge(poolTotal, float64(s.TotalConns()))
		gauge(poolIdle, float64(s.IdleConns()))
		gauge(poolAcquired, float64(s.AcquiredConns()))
		gauge(poolMax, float64(s.MaxConns()))
	}
}
