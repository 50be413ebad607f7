package main

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The state file of a `basalt dev` that was killed and not yet reaped (a
// zombie) does not make the data dir look taken, so a restart right after
// a kill -9 is not refused as "already running"; a live owner still does.
func TestReadStateZombieOwnerIsNotRunning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	zombie := exec.Command("true")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	pid := zombie.Process.Pid
	defer func() { _ = zombie.Wait() }()
	// Wait for the exit without reaping it (WNOWAIT): it stays a zombie.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("kill(zombie, 0) = %v; the test needs an unreaped child", err)
	}
	if err := writeState(dir, state{PID: pid, APIURL: "http://127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := readState(dir); !errors.Is(err, errNotRunning) {
		t.Fatalf("state of a zombie: %v, want not running", err)
	}

	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = live.Process.Kill(); _ = live.Wait() }()
	if err := writeState(dir, state{PID: live.Process.Pid, APIURL: "http://127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := readState(dir); err != nil {
		t.Fatalf("state of a live process: %v, want running", err)
	}
}
