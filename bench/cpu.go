package bench

import (
	"bufio"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// cpuTimes is the machine's CPU time so far, summed over all cores.
type cpuTimes struct {
	busy, total time.Duration
}

// clockTick is USER_HZ, the unit of /proc/stat: 100 on every Linux
// architecture Go supports.
const clockTick = 10 * time.Millisecond

// machineCPU reads the first line of /proc/stat ("cpu user nice system idle
// iowait irq softirq steal ..."). Idle and iowait count as not busy; steal
// is time another guest used, so it is left out of both.
func machineCPU() (cpuTimes, bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return cpuTimes{}, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return cpuTimes{}, false
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 9 || fields[0] != "cpu" {
		return cpuTimes{}, false
	}
	var v [8]int64
	for i := range v {
		n, err := strconv.ParseInt(fields[i+1], 10, 64)
		if err != nil {
			return cpuTimes{}, false
		}
		v[i] = n
	}
	user, nice, system, idle, iowait, irq, softirq := v[0], v[1], v[2], v[3], v[4], v[5], v[6]
	busy := user + nice + system + irq + softirq
	return cpuTimes{busy: time.Duration(busy) * clockTick, total: time.Duration(busy+idle+iowait) * clockTick}, true
}

// databasePID, when set, is a server process whose CPU time (its own and
// its direct children's: PostgreSQL's backends) Run reports apart.
var databasePID atomic.Int64

// CountDatabaseCPU makes every later Run also report the CPU time per
// operation spent by the process pid and its children (pass the
// PostgreSQL postmaster), so a result splits into database and the rest.
func CountDatabaseCPU(pid int) { databasePID.Store(int64(pid)) }

// processTreeCPU sums user and system time of root and its direct children
// from /proc/<pid>/stat. A backend that exited between two readings takes
// its time with it, so the figure is a floor.
func processTreeCPU(root int) (time.Duration, bool) {
	procs := ProcessTree(root)
	var sum time.Duration
	for _, p := range procs {
		sum += p.CPU
	}
	return sum, len(procs) > 0
}

// Process is one process of a tree: its id, CPU time so far (user and
// system) and command line (arguments joined by spaces; PostgreSQL's
// backends name their role and state there).
type Process struct {
	PID     int
	CPU     time.Duration
	Cmdline string
}

// ProcessTree lists root and its direct children (a PostgreSQL
// postmaster's backends), from /proc.
func ProcessTree(root int) []Process {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name (field 2) may hold spaces; fields after it
		// start at its closing parenthesis.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		// f[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
		if len(f) < 13 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		if pid != root && ppid != root {
			continue
		}
		ut, err1 := strconv.ParseInt(f[11], 10, 64)
		st, err2 := strconv.ParseInt(f[12], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		out = append(out, Process{PID: pid, CPU: time.Duration(ut+st) * clockTick,
			Cmdline: strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))})
	}
	return out
}

// ProcessRSS is the resident set size of process pid in bytes, from the
// VmRSS line of /proc/<pid>/status; false when the process is gone or the
// system does not expose it.
func ProcessRSS(pid int) (int64, bool) {
	m, ok := ProcessMemory(pid)
	return m.RSS, ok
}

// Memory is a process's resident set and its two parts: anonymous memory
// (heap, stacks, the runtime's own) and pages of mapped files (for a Go
// server, its binary's).
type Memory struct {
	RSS  int64 `json:"rss_bytes"`
	Anon int64 `json:"anon_bytes"`
	File int64 `json:"file_bytes"`
}

// ProcessMemory reads process pid's resident set from the VmRSS, RssAnon
// and RssFile lines of /proc/<pid>/status; false when the process is gone
// or the system does not expose them.
func ProcessMemory(pid int) (Memory, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return Memory{}, false
	}
	var m Memory
	fields := map[string]*int64{"VmRSS:": &m.RSS, "RssAnon:": &m.Anon, "RssFile:": &m.File}
	found := 0
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line) // "VmRSS:  123456 kB"
		if len(f) != 3 || fields[f[0]] == nil || f[2] != "kB" {
			continue
		}
		kb, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return Memory{}, false
		}
		*fields[f[0]] = kb << 10
		found++
	}
	return m, found == len(fields)
}

// CPUSpan measures the CPU time this process (client and in-process server
// alike) and the database (see CountDatabaseCPU) spend over a span of work.
// Unlike Result.CPUPerOp it leaves out other processes on the machine, so it
// stays meaningful on a shared one.
type CPUSpan struct {
	self0, db0 time.Duration
	dbOK       bool
}

// StartCPUSpan begins a span.
func StartCPUSpan() CPUSpan {
	s := CPUSpan{self0: selfCPU()}
	if pid := int(databasePID.Load()); pid > 0 {
		s.db0, s.dbOK = processTreeCPU(pid)
	}
	return s
}

// PerOp ends the span and divides what was spent by n operations; db is 0
// when no database is counted.
func (s CPUSpan) PerOp(n int) (self, db time.Duration) {
	if n <= 0 {
		return 0, 0
	}
	self = (selfCPU() - s.self0) / time.Duration(n)
	if !s.dbOK {
		return self, 0
	}
	if d1, ok := processTreeCPU(int(databasePID.Load())); ok {
		db = (d1 - s.db0) / time.Duration(n)
	}
	return self, db
}

// selfCPU is this process's user and system time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapCount is this process's heap allocations so far, in objects and
// bytes.
type heapCount struct{ objects, bytes uint64 }

// heapAllocs reads the runtime's cumulative allocation counters (no
// stop-the-world, unlike runtime.ReadMemStats).
func heapAllocs() heapCount {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	var h heapCount
	if s[0].Value.Kind() == metrics.KindUint64 {
		h.objects = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		h.bytes = s[1].Value.Uint64()
	}
	return h
}
