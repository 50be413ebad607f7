package main

import (
	"os"
	"os/exec"
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
