package proc

import (
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A child that has exited but is not reaped is a zombie: kill(pid, 0)
// still succeeds for it, and Alive must say it is not running. A live
// process is alive; a reaped one is gone.
func TestAliveZombieAndLive(t *testing.T) {
	t.Parallel()
	zombie := exec.Command("true")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	pid := zombie.Process.Pid
	// Wait for the exit without reaping (WNOWAIT): the child stays a zombie.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("kill(zombie, 0) = %v; the test needs an unreaped child", err)
	}
	if Alive(pid) {
		t.Error("a zombie counts as alive")
	}
	if err := zombie.Wait(); err != nil {
		t.Fatal(err)
	}
	if Alive(pid) {
		t.Error("a reaped process counts as alive")
	}

	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = live.Process.Kill(); _ = live.Wait() }()
	if !Alive(live.Process.Pid) {
		t.Error("a running process counts as gone")
	}
	if Alive(0) || Alive(-1) {
		t.Error("a pid that names no process counts as alive")
	}
}

func TestExitedState(t *testing.T) {
	t.Parallel()
	for stat, want := range map[string]bool{
		"42 (basalt) S 1 42":      false,
		"42 (basalt) R 1 42":      false,
		"42 (basalt) Z 1 42":      true,
		"42 (basalt) X 1 42":      true,
		"42 (a) Z (b)) S 1 42":    false,
		"42 (odd name) Z) Z 1 42": true,
		"42 (truncated":           false,
	} {
		if got := exited([]byte(stat)); got != want {
			t.Errorf("exited(%q) = %v, want %v", stat, got, want)
		}
	}
}
