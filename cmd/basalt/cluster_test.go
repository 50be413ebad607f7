package main

import (
	"os"
	"os/user"
	"path/filepath"
	"testing"
)

func TestReachableByServerUser(t *testing.T) {
	t.Parallel()
	if _, err := user.Lookup("postgres"); err != nil {
		t.Skip("no postgres system user on this machine")
	}
	if os.Geteuid() != 0 {
		t.Skip("the check only matters when running as root")
	}
	base := t.TempDir()
	open := filepath.Join(base, "open")
	closed := filepath.Join(base, "closed")
	for dir, mode := range map[string]os.FileMode{open: 0o755, closed: 0o700} {
		if err := os.Mkdir(dir, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
	}
	// t.TempDir's own parents are private; open them for the check.
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(base), 0o755); err != nil {
		t.Fatal(err)
	}
	if !reachableByServerUser(filepath.Join(open, "data", "pg")) {
		t.Error("a 0755 path reported unreachable")
	}
	if reachableByServerUser(filepath.Join(closed, "data", "pg")) {
		t.Error("a path under a root-only 0700 folder reported reachable")
	}
}
