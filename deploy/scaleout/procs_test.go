package scaleout

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// versitygwModule is the S3 server the test runs, at the version .ci/run
// installs.
const versitygwModule = "github.com/versity/versitygw/cmd/versitygw@v1.8.0"

// required turns a missing prerequisite into a skip, or a failure when
// strict (in CI, or with PGTEST_REQUIRED for the PostgreSQL binaries).
func required(t *testing.T, strict bool, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if strict || os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// findVersitygw looks on PATH, then in the checkout's .tools/bin.
func findVersitygw(t *testing.T, root string) string {
	t.Helper()
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	p := filepath.Join(root, ".tools", "bin", "versitygw")
	if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
		return p
	}
	required(t, false, "no versitygw (the S3 server of this test) on PATH or in .tools/bin; install it with: GOBIN=$PWD/.tools/bin go install %s", versitygwModule)
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// proc is a child process whose output goes to a log file.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func start(t *testing.T, name string, env []string, bin string, args ...string) *proc {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		_ = f.Close()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop(syscall.SIGTERM)
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			if len(b) > 4000 {
				b = b[len(b)-4000:]
			}
			t.Logf("%s log (tail):\n%s", name, b)
		}
	})
	return p
}

// stop sends sig and waits for the process to end (SIGKILL after 10 s).
func (p *proc) stop(sig syscall.Signal) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitHTTP polls url until it answers 200.
func waitHTTP(t *testing.T, p *proc, url string, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(url); err == nil {
			_ = res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		if p.exited() {
			t.Fatalf("%s exited before %s answered", p.name, url)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never answered 200 within %s", url, d)
		}
	}
}

// waitTCP polls until addr accepts connections.
func waitTCP(t *testing.T, p *proc, addr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := pgcluster.WaitReady(ctx, "tcp", addr); err != nil {
		if p.exited() {
			t.Fatalf("%s exited", p.name)
		}
		t.Fatal(err)
	}
}

// buildBasalt compiles the binary of this checkout.
func buildBasalt(t *testing.T, root string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "basalt")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/basalt")
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out.String())
	}
	return bin
}

// moduleRoot is the checkout this test runs in.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := pgtest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func itoa(n int) string { return strconv.Itoa(n) }
