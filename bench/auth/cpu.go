package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/basaltdev/basalt/bench"
)

// On a shared machine throughput swings with everyone else's load, but the
// CPU time one operation costs does not: measured means the same work. So
// every case also reports the CPU seconds spent per operation, split into
// this process (HTTP server and client, JWT, JSON, pgx) and the PostgreSQL
// server (the backends of the throwaway cluster).

// cpuMeter reads the CPU time of this process and of a cluster's backends.
type cpuMeter struct {
	postmaster int // pid of the cluster's postmaster; 0 when unknown
}

// newCPUMeter finds the postmaster of the cluster in dataDir ("" when the
// database is not ours: then only this process is measured).
func newCPUMeter(dataDir string) *cpuMeter {
	m := &cpuMeter{}
	if dataDir == "" {
		return m
	}
	raw, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return m
	}
	first, _, _ := strings.Cut(string(raw), "\n")
	m.postmaster, _ = strconv.Atoi(strings.TrimSpace(first))
	return m
}

// sample returns the CPU time used so far by this process and by the
// postmaster's children (the backends; connections of the pool live for
// the whole run, so their counters only grow).
func (m *cpuMeter) sample() (self, server time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if m.postmaster == 0 {
		return self, 0
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return self, 0
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		ppid, ticks, ok := procStat(e.Name())
		if ok && ppid == m.postmaster {
			server += time.Duration(ticks) * time.Second / clockTicks
		}
	}
	return self, server
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times (100 on every
// Linux platform Go supports).
const clockTicks = 100

// procStat reads the parent pid and utime+stime of a process.
func procStat(pid string) (ppid int, ticks int64, ok bool) {
	raw, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name is in parentheses and may contain spaces: fields
	// are counted from the last ')'.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(raw[i+1:]))
	sc.Split(bufio.ScanWords)
	var f []string
	for sc.Scan() {
		f = append(f, sc.Text())
	}
	// After ')': state(3) ppid(4) ... utime(14) stime(15), numbered from 1
	// for the whole line, so ppid is f[1], utime f[11], stime f[12].
	if len(f) < 13 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return ppid, ut + st, true
}

// cpuCost is the CPU time one operation of a case cost.
type cpuCost struct {
	Self, Server time.Duration
}

// measure runs a case through bench.Run and also returns its CPU cost per
// operation, counting the warm-up's operations with the CPU they used.
func (m *cpuMeter) measure(ctx context.Context, name string, opts bench.Options, op bench.Op) (bench.Result, cpuCost) {
	var n atomic.Int64
	self0, server0 := m.sample()
	r := bench.Run(ctx, name, opts, func(ctx context.Context) (int64, error) {
		n.Add(1)
		return op(ctx)
	})
	self1, server1 := m.sample()
	ops := max(n.Load(), 1)
	return r, cpuCost{Self: (self1 - self0) / time.Duration(ops), Server: (server1 - server0) / time.Duration(ops)}
}
