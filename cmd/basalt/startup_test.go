package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestStartupCPU: loading the binary (every package's init, before any
// command runs) costs next to no CPU, so `basalt dev`, `basalt serve` and a
// quick `basalt status` alike start at once. It runs this test binary,
// which links what cmd/basalt links, with no test selected, and reads the
// process's CPU time; CPU time, not wall time, so a busy machine does not
// fail it. A bcrypt hash made at init once cost every start 0.25 s.
func TestStartupCPU(t *testing.T) {
	const limit = 100 * time.Millisecond
	best := time.Hour
	for range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "PGTEST_REQUIRED=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		best = min(best, time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
	}
	if best > limit {
		t.Errorf("starting the binary took %s of CPU (best of 3), want under %s: see GODEBUG=inittrace=1", best, limit)
	}
}

// TestStartupInitHeap: no package of Basalt's builds tables at init
// (compiled regular expressions, validators, templates, metric
// descriptions): what a feature needs is made when it is first used, so a
// node pays in heap and in resident pages of the binary only for what it
// runs. It reads GODEBUG=inittrace=1's line for each package of this test
// binary, which links what cmd/basalt links.
func TestStartupInitHeap(t *testing.T) {
	const limit = 8 << 10 // bytes allocated by one package's initialisers
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PGTEST_REQUIRED=", "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// init github.com/basaltdev/basalt/studio @21 ms, 0.29 ms clock, 205432 bytes, 2638 allocs
	line := regexp.MustCompile(`(?m)^init (github\.com/basaltdev/basalt/\S+) @.*, (\d+) bytes, (\d+) allocs$`)
	found := line.FindAllStringSubmatch(string(out), -1)
	if len(found) == 0 {
		t.Fatalf("no inittrace lines for Basalt's packages in:\n%s", out)
	}
	for _, m := range found {
		if n, _ := strconv.Atoi(m[2]); n > limit {
			t.Errorf("%s allocates %d bytes (%s allocations) at init, want at most %d: make its tables on first use (internal/lazy)",
				m[1], n, m[3], limit)
		}
	}
}
