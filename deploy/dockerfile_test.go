package deploy

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moby/buildkit/frontend/dockerfile/dockerignore"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"
	"github.com/moby/patternmatcher"

	"github.com/basaltdev/basalt/internal/pgtest"
)

// The Dockerfile is read by BuildKit's own parser (the one `docker build`
// runs), so the tests see the stages, flags and exec forms Docker sees.
// Docker itself is not available to the tests: what its build steps do
// here is done by the tests themselves (the Go build, the COPY steps, the
// directories the RUN steps make) and the image's entrypoint is then run
// with the image's environment against a real database.

func TestMain(m *testing.M) { pgtest.Main(m) }

// dockerfile parses the Dockerfile into its stages, failing on anything
// BuildKit would warn about.
func dockerfile(t *testing.T) []instructions.Stage {
	t.Helper()
	f, err := os.Open("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ast, err := parser.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ast.Warnings {
		t.Errorf("Dockerfile: %s", w.Short)
	}
	stages, _, err := instructions.Parse(ast.AST, nil)
	if err != nil {
		t.Fatal(err)
	}
	return stages
}

// stageCommands returns the stage's commands of type C.
func stageCommands[C any](s instructions.Stage) []C {
	var out []C
	for _, c := range s.Commands {
		if v, ok := c.(C); ok {
			out = append(out, v)
		}
	}
	return out
}

func last[C any](s instructions.Stage) (C, bool) {
	cs := stageCommands[C](s)
	if len(cs) == 0 {
		var zero C
		return zero, false
	}
	return cs[len(cs)-1], true
}

// words splits a shell command line as the shell would.
func words(t *testing.T, cmd string) []string {
	t.Helper()
	w, err := shell.NewLex('\\').ProcessWords(cmd, shell.EnvsFromSlice(nil))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// imageEnv is the final stage's ENV.
func imageEnv(s instructions.Stage) map[string]string {
	env := map[string]string{}
	for _, e := range stageCommands[*instructions.EnvCommand](s) {
		for _, kv := range e.Env {
			env[kv.Key] = kv.Value
		}
	}
	return env
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	p, dir = path.Clean(p), path.Clean(dir)
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// TestDockerfileStages: stages copy only from stages defined before them,
// the Go toolchain is the one go.mod asks for, Node is the one the
// frontend needs, and the runtime stage is unprivileged with its storage on
// the volume.
func TestDockerfileStages(t *testing.T) {
	stages := dockerfile(t)
	if len(stages) < 2 {
		t.Fatalf("%d stages: want build stages and a runtime stage", len(stages))
	}
	byName := map[string]int{}
	for i, s := range stages {
		for _, c := range stageCommands[*instructions.CopyCommand](s) {
			if j, ok := byName[c.From]; c.From != "" && (!ok || j >= i) {
				t.Errorf("stage %d copies from %q, which is not an earlier stage", i, c.From)
			}
		}
		if s.Name != "" {
			byName[s.Name] = i
		}
	}
	goMod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	wantGo := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(goMod)
	if build, ok := byName["build"]; !ok || wantGo == nil || !strings.HasPrefix(stages[build].BaseName, "golang:"+string(wantGo[1])) {
		t.Errorf("the build stage's image is not golang:%s (go.mod's go line)", wantGo[1])
	}
	if fe, ok := byName["frontend"]; !ok || !regexp.MustCompile(`^node:(2[2-9]|[3-9]\d)\b`).MatchString(stages[fe].BaseName) {
		t.Error("the frontend stage does not build with Node 22 or newer (supabase-js needs it)")
	}

	run := stages[len(stages)-1]
	user, _ := last[*instructions.UserCommand](run)
	workdir, _ := last[*instructions.WorkdirCommand](run)
	volume, _ := last[*instructions.VolumeCommand](run)
	if user == nil || user.User == "" || user.User == "root" || user.User == "0" {
		t.Fatal("the runtime stage runs as root; want an unprivileged user")
	}
	if workdir == nil || volume == nil || len(volume.Volumes) != 1 {
		t.Fatal("the runtime stage needs a WORKDIR and one VOLUME")
	}
	storageDir := imageEnv(run)["STORAGE_FILE_DIR"]
	if storageDir == "" {
		storageDir = path.Join(workdir.Path, ".basalt/storage") // the default is relative
	}
	if !within(storageDir, volume.Volumes[0]) {
		t.Errorf("file storage %s is outside the volume %s: objects would live in the container's layer", storageDir, volume.Volumes[0])
	}
	// The user is created, and handed the storage directory, by the stage's
	// own commands; CA certificates are installed for TLS to S3, SMTP and
	// the payment providers.
	var created, owns, certs bool
	for _, r := range stageCommands[*instructions.RunCommand](run) {
		for _, step := range splitSteps(words(t, strings.Join(r.CmdLine, " "))) {
			switch {
			case len(step) > 1 && step[0] == "useradd" && step[len(step)-1] == user.User:
				created = true
			case len(step) > 2 && step[0] == "chown" && strings.HasPrefix(step[len(step)-2], user.User+":") &&
				within(storageDir, step[len(step)-1]):
				owns = true
			case len(step) > 2 && step[0] == "apt-get" && step[1] == "install" && slices.Contains(step, "ca-certificates"):
				certs = true
			}
		}
	}
	if !created || !owns || !certs {
		t.Errorf("runtime stage: user %s created %v, owns %s %v, CA certificates %v", user.User, created, storageDir, owns, certs)
	}
	entry, ok := last[*instructions.EntrypointCommand](run)
	if !ok || entry.PrependShell {
		t.Error("the ENTRYPOINT is not in exec form: basalt would not be PID 1 and would miss docker stop's SIGTERM")
	}
}

// splitSteps cuts a shell command line at && and ;.
func splitSteps(ws []string) [][]string {
	var out [][]string
	var cur []string
	for _, w := range ws {
		if w == "&&" || w == ";" {
			out, cur = append(out, cur), nil
			continue
		}
		cur = append(cur, w)
	}
	return append(out, cur)
}

// TestDockerfileContext: every file the build copies from the context is
// there and not ignored, and local state (the dev cluster and its keys,
// installed packages) never enters the context.
func TestDockerfileContext(t *testing.T) {
	f, err := os.Open("Dockerfile.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	patterns, err := dockerignore.ReadAll(f)
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	ignored := func(p string) bool {
		m, err := pm.MatchesOrParentMatches(p)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, s := range dockerfile(t) {
		for _, c := range stageCommands[*instructions.CopyCommand](s) {
			if c.From != "" {
				continue
			}
			for _, src := range c.SourcePaths {
				src = path.Clean(strings.TrimPrefix(src, "./"))
				if _, err := os.Stat(filepath.Join("..", src)); src != "." && err != nil {
					t.Errorf("COPY %s: %v", src, err)
				}
				if src != "." && ignored(src) {
					t.Errorf("COPY %s: the context leaves it out", src)
				}
			}
		}
	}
	for _, p := range []string{".basalt/keys.json", ".basalt/pg/postgresql.conf", "frontend/node_modules/x", "compat/node_modules/x", "bin/basalt", "frontend/dist/index.html"} {
		if !ignored(p) {
			t.Errorf("%s enters the build context", p)
		}
	}
	for _, p := range []string{"go.mod", "cmd/basalt/main.go", "sql/app/0001_x.sql", "frontend/src/main.tsx"} {
		if ignored(p) {
			t.Errorf("%s is left out of the build context", p)
		}
	}
}

// TestDockerfileImageServes does the image's steps without Docker: the
// build stage's go build (its flags and environment), the runtime stage's
// COPY steps and the directories its RUN steps make, under a scratch root;
// then runs the ENTRYPOINT with the image's ENV (paths moved under that
// root) and what an operator adds (the database, the JWT secret, a port).
// The binary must be static (the runtime image has no Go toolchain and its
// own libc), serve /health, apply the migrations the image carries, and
// stop cleanly on docker stop's SIGTERM.
func TestDockerfileImageServes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	stages := dockerfile(t)
	root := t.TempDir()
	rebase := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }

	// The build stage: its go build, with its environment and flags, the
	// output moved under root.
	built := map[string]string{} // path in the build stage -> file here
	for _, s := range stages[:len(stages)-1] {
		for _, r := range stageCommands[*instructions.RunCommand](s) {
			ws := words(t, strings.Join(r.CmdLine, " "))
			var env []string
			for len(ws) > 0 && strings.Contains(ws[0], "=") {
				env, ws = append(env, ws[0]), ws[1:]
			}
			if len(ws) < 2 || ws[0] != "go" || ws[1] != "build" {
				continue
			}
			args := slices.Clone(ws[1:])
			for i := range args {
				if args[i] == "-o" && i+1 < len(args) {
					built[s.Name+":"+args[i+1]] = filepath.Join(root, "build", args[i+1])
					args[i+1] = built[s.Name+":"+args[i+1]]
				}
			}
			cmd := exec.Command("go", args...)
			cmd.Dir = ".."
			cmd.Env = append(os.Environ(), env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(r.CmdLine, " "), err, out)
			}
		}
	}

	// The runtime stage: its COPY steps and mkdir -p, under root.
	run := stages[len(stages)-1]
	for _, c := range stageCommands[*instructions.CopyCommand](run) {
		for _, src := range c.SourcePaths {
			dst := rebase(c.DestPath)
			switch from := built[c.From+":"+src]; {
			case from != "":
				copyFile(t, from, dst, 0o755)
			case c.From == "":
				copyTree(t, filepath.Join("..", src), dst)
			default:
				// Another stage's output this test does not build (the
				// frontend): an empty folder stands in for it.
				if err := os.MkdirAll(dst, 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, r := range stageCommands[*instructions.RunCommand](run) {
		for _, step := range splitSteps(words(t, strings.Join(r.CmdLine, " "))) {
			if len(step) > 2 && step[0] == "mkdir" && step[1] == "-p" {
				for _, d := range step[2:] {
					if err := os.MkdirAll(rebase(d), 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	entry, _ := last[*instructions.EntrypointCommand](run)
	workdir, _ := last[*instructions.WorkdirCommand](run)
	if entry == nil || workdir == nil || len(entry.CmdLine) == 0 {
		t.Fatal("the runtime stage has no ENTRYPOINT or WORKDIR")
	}
	bin := rebase(entry.CmdLine[0])
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatalf("the entrypoint %s is not an executable the build made: %v", entry.CmdLine[0], err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary is dynamically linked: it needs a libc the runtime image may not have")
		}
	}
	_ = ef.Close()

	db := pgtest.NewEmptyDB(t)
	port := freePort(t)
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + root}
	for k, v := range imageEnv(run) {
		if strings.HasPrefix(v, "/") {
			v = rebase(v)
		}
		env = append(env, k+"="+v)
	}
	env = append(env, "DATABASE_URL="+db.AdminURL, "BASALT_AUTHENTICATOR_URL="+db.UserURL,
		"JWT_SECRET="+strings.Repeat("s", 40), "BASALT_API_PORT="+port)
	cmd := exec.Command(bin, entry.CmdLine[1:]...)
	cmd.Dir, cmd.Env = rebase(workdir.Path), env
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = cmd.Process.Kill()
			_ = <-exited // killed: its error says only that
		}
	})
	waitHealthy(t, "http://127.0.0.1:"+port+"/health", exited, &out)

	var app int
	if err := db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM basalt.schema_migrations WHERE source = 'app'`).Scan(&app); err != nil || app == 0 {
		t.Errorf("the image's app migrations were not applied: %d (%v)\n%s", app, err, out.String())
	}

	// docker stop: SIGTERM, then SIGKILL after 10 s.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			t.Errorf("basalt serve ended with %v on SIGTERM\n%s", err, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Errorf("basalt serve did not stop within docker stop's 10 s\n%s", out.String())
	}
}

func waitHealthy(t *testing.T, url string, exited <-chan error, out *syncBuffer) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		res, err := http.Get(url)
		if err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("basalt serve exited: %v\n%s", err, out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("basalt serve is not healthy:\n%s", out.String())
		}
	}
}

// syncBuffer collects a process's output, written from its pipes'
// goroutines and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies a folder (or a file) as COPY does.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		copyFile(t, p, filepath.Join(to, rel), 0o644)
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
}
