package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/basaltdev/basalt/bench"
)

// peer is a server the benchmark compares Basalt with, built from source
// at a pinned version with `go install` into .tools/bin (git-ignored).
type peer struct {
	name    string
	module  string // the main package, as go install takes it
	version string
	binary  string // the installed command's name
}

var (
	centrifugo = peer{name: "Centrifugo", module: "github.com/centrifugal/centrifugo/v6", version: "v6.9.1", binary: "centrifugo"}
	// PocketBase's newest release (v0.40.x) needs Go 1.27; v0.36.8 is the
	// newest that builds with the Go this project pins (1.26).
	pocketbase = peer{name: "PocketBase", module: "github.com/pocketbase/pocketbase/examples/base", version: "v0.36.8", binary: "base"}
)

func (p peer) String() string { return p.name + " " + p.version }

// buildEnv is how every server of the comparison is built: statically, as
// Basalt's Dockerfile and the peers' own releases are (a binary linked
// against the C library maps it too: about 1.5 MB of resident memory).
var buildEnv = []string{"CGO_ENABLED=0"}

// find returns the peer's binary under root/.tools/bin, building it there
// when build is set and it is missing.
func (p peer) find(ctx context.Context, root string, build bool) (string, error) {
	dir := filepath.Join(root, ".tools", "bin")
	bin := filepath.Join(dir, p.binary)
	stamp := bin + ".version"
	want := p.version + " " + strings.Join(buildEnv, " ")
	if v, err := os.ReadFile(stamp); err == nil && strings.TrimSpace(string(v)) == want {
		if _, err := os.Stat(bin); err == nil {
			return bin, nil
		}
	}
	if !build {
		return "", fmt.Errorf("%s: %w (run without -smoke, or CGO_ENABLED=0 go install -trimpath %s@%s into .tools/bin)", p, errNoPeer, p.module, p.version)
	}
	progress("building %s from source (go install, minutes the first time)", p)
	cmd := exec.CommandContext(ctx, "go", "install", "-trimpath", p.module+"@"+p.version)
	cmd.Env = append(append(os.Environ(), "GOBIN="+dir), buildEnv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s@%s: %w\n%s", p.module, p.version, err, last(string(out)))
	}
	if err := os.WriteFile(stamp, []byte(want+"\n"), 0o644); err != nil {
		return "", err
	}
	return bin, nil
}

// startCentrifugo runs Centrifugo with anonymous clients allowed to
// subscribe and publish (its "insecure" client mode: no token checks, no
// permission checks), the closest to public realtime channels.
func startCentrifugo(ctx context.Context, bin, tmp string) (*proc, error) {
	port, err := bench.FreePort()
	if err != nil {
		return nil, err
	}
	conf := `{"http_server":{"address":"127.0.0.1","port":` + strconv.Itoa(port) + `},` +
		`"client":{"insecure":true,"allowed_origins":["*"]},"log":{"level":"error"},` +
		`"usage_stats":{"disabled":true},"health":{"enabled":true}}`
	path := filepath.Join(tmp, "centrifugo.json")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	return startProc(ctx, "centrifugo", tmp, tmp, port, os.Environ(), "/health", bin, "--config", path)
}
