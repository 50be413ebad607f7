package deno

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
)

// toolsBin is where `just deno` installs the npm package deno, relative to
// a checkout.
const toolsBin = ".tools/deno/node_modules/.bin/deno"

// FindBin locates the deno executable: DENO_BIN, else `deno` on PATH, else
// the copy `just deno` installs under .tools/ of the working folder or of
// any folder above it (tests run in package folders).
func FindBin(getenv func(string) string) (string, error) {
	if p := getenv("DENO_BIN"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", errors.New("DENO_BIN: " + err.Error())
		}
		return p, nil
	}
	if p, err := exec.LookPath("deno"); err == nil {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, toolsBin)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("deno not found: set DENO_BIN, put deno on PATH, or run `just deno` (installs the npm package deno under .tools/)")
		}
		dir = parent
	}
}
