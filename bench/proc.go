package bench

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// BuildBasalt compiles cmd/basalt of the module at root into dir, unless
// bin already names a binary; env adds to the build's environment
// (CGO_ENABLED=0 builds it as the Dockerfile does).
func BuildBasalt(ctx context.Context, root, dir, bin string, env ...string) (string, error) {
	if bin != "" {
		return bin, nil
	}
	out := filepath.Join(dir, "basalt")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, "./cmd/basalt")
	cmd.Dir = root
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/basalt: %w\n%s", err, b)
	}
	return out, nil
}

// FreePort is a TCP port on 127.0.0.1 that nothing listens on now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ProcessCPU is the user and system time process pid and its direct
// children have used so far (a server and, for PostgreSQL, its backends);
// false when the process is gone.
func ProcessCPU(pid int) (time.Duration, bool) { return processTreeCPU(pid) }
