// Package proc answers whether a process is running, for the checks that
// keep two Basalt dev stacks or two PostgreSQL servers off one data folder.
package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Alive reports whether pid is a running process. kill(pid, 0) alone is
// not enough: it succeeds for a zombie, a process that has exited but that
// its parent has not reaped yet (right after a kill -9, for a while), so a
// restart would be refused as "already running". Where /proc exists the
// process's state decides: gone, zombie (Z) or dead (X) is not alive.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		return !exited(b)
	}
	if _, serr := os.Stat("/proc/self/stat"); serr == nil {
		return false // /proc is there and the process is not
	}
	// No /proc (macOS, BSD): the signal check is all there is.
	err = syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// exited reads the state letter of a /proc/<pid>/stat line. It follows the
// command name, which is in parentheses and may itself hold spaces or
// parentheses, so it is found after the last ')'.
func exited(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return false // unreadable: assume running, the safe answer
	}
	switch stat[i+2] {
	case 'Z', 'X', 'x':
		return true
	}
	return false
}
