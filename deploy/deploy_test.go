// Package deploy holds no code: its tests read the deployment files as an
// operator's machine would and fail on the mistakes that stop them from
// starting (no CA certificates, no writable storage directory). Docker and a
// running systemd are not available to the tests: the Dockerfile is parsed
// by BuildKit's parser and its build and runtime steps are done by the tests
// themselves, up to running the image's entrypoint with its environment
// against a real database (dockerfile_test.go); the systemd unit is checked
// for what systemd would enforce, and systemd-analyze verifies its syntax
// where it is installed.
package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// unitFile parses a systemd unit into section → key → values (keys may repeat).
func unitFile(t *testing.T, name string) map[string]map[string][]string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string][]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "["):
			section = strings.Trim(line, "[]")
			out[section] = map[string][]string{}
		default:
			k, v, _ := strings.Cut(line, "=")
			out[section][k] = append(out[section][k], v)
		}
	}
	return out
}

func TestSystemdUnitCanWriteStorage(t *testing.T) {
	svc := unitFile(t, "basalt.service")["Service"]
	env := map[string]string{}
	for _, e := range svc["Environment"] {
		for _, kv := range strings.Fields(e) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
	}
	workdir := strings.Join(svc["WorkingDirectory"], "")
	storageDir := env["STORAGE_FILE_DIR"]
	if storageDir == "" {
		storageDir = path.Join(workdir, ".basalt/storage")
	}
	if strings.Join(svc["ProtectSystem"], "") != "strict" {
		return // the whole file system is writable as far as systemd goes
	}
	// Under ProtectSystem=strict only these stay writable.
	var writable []string
	for _, d := range svc["StateDirectory"] {
		for _, name := range strings.Fields(d) {
			writable = append(writable, "/var/lib/"+name)
		}
	}
	for _, d := range svc["ReadWritePaths"] {
		writable = append(writable, strings.Fields(d)...)
	}
	ok := false
	for _, w := range writable {
		ok = ok || within(storageDir, strings.TrimPrefix(w, "-"))
	}
	if !ok {
		t.Errorf("ProtectSystem=strict leaves %s read-only (writable: %v); add StateDirectory= or ReadWritePaths=", storageDir, writable)
	}
	if len(svc["StateDirectory"]) > 0 && !within(workdir, writable[0]) {
		t.Errorf("WorkingDirectory %s is outside the state directory %s", workdir, writable[0])
	}
}

// TestSystemdUnitVerifies runs systemd-analyze verify on the unit, with
// ExecStart pointed at an executable that exists here.
func TestSystemdUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed")
	}
	raw, err := os.ReadFile("basalt.service")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	unit := regexp.MustCompile(`(?m)^ExecStart=\S+`).ReplaceAllString(string(raw), "ExecStart="+self)
	name := filepath.Join(t.TempDir(), "basalt.service")
	if err := os.WriteFile(name, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", "--man=no", name).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	// verify exits 0 on some warnings; any line about our unit is a defect.
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "basalt.service") {
			t.Errorf("systemd-analyze: %s", line)
		}
	}
}
