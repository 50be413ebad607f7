// Package deploy holds no code: its tests read the deployment files as an
// operator's machine would and fail on the mistakes that stop them from
// starting (no CA certificates, no writable storage directory). Docker and a
// running systemd are not available to the tests, so the files are checked
// for what those would enforce; systemd-analyze verifies the unit's syntax
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

// instruction is one Dockerfile instruction with its continuation lines joined.
type instruction struct {
	cmd  string // upper case: FROM, RUN, ENV, …
	args string
}

func readDockerfile(t *testing.T, name string) []instruction {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	var cur strings.Builder
	for _, line := range strings.Split(string(raw), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur.Reset()
	}
	return out
}

// finalStage returns the instructions after the last FROM: what the image runs.
func finalStage(ins []instruction) []instruction {
	last := 0
	for i, in := range ins {
		if in.cmd == "FROM" {
			last = i
		}
	}
	return ins[last:]
}

// envOf parses ENV k=v pairs (the only form the Dockerfile uses).
func envOf(stage []instruction) map[string]string {
	env := map[string]string{}
	for _, in := range stage {
		if in.cmd != "ENV" {
			continue
		}
		for _, kv := range strings.Fields(in.args) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
	}
	return env
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	p, dir = path.Clean(p), path.Clean(dir)
	return p == dir || strings.HasPrefix(p, dir+"/")
}

func TestDockerfileRuntimeStage(t *testing.T) {
	stage := finalStage(readDockerfile(t, "Dockerfile"))
	var runs []string
	var workdir, volume, user string
	for _, in := range stage {
		switch in.cmd {
		case "RUN":
			runs = append(runs, in.args)
		case "WORKDIR":
			workdir = in.args
		case "VOLUME":
			volume = strings.Trim(in.args, `[]" `)
		case "USER":
			user = in.args
		}
	}
	all := strings.Join(runs, "\n")
	if !regexp.MustCompile(`apt-get install[^\n]*\bca-certificates\b`).MatchString(all) {
		t.Error("runtime stage installs no ca-certificates: TLS to S3, SMTP and payment providers fails")
	}
	if user == "" || user == "root" || user == "0" {
		t.Errorf("runtime stage runs as %q; want an unprivileged user", user)
	}
	if workdir == "" {
		t.Error("runtime stage sets no WORKDIR: relative paths resolve against /, which the user cannot write")
	}
	if volume == "" {
		t.Error("runtime stage declares no VOLUME: stored objects would live in the container's layer")
	}
	storageDir := envOf(stage)["STORAGE_FILE_DIR"]
	if storageDir == "" {
		// The default is relative; it lands under WORKDIR.
		storageDir = path.Join(workdir, ".basalt/storage")
	}
	if volume != "" && !within(storageDir, volume) {
		t.Errorf("file storage dir %s is outside the volume %s", storageDir, volume)
	}
	// The directory the user writes must be created and handed to it in the image.
	chown := regexp.MustCompile(`chown\s+(-R\s+)?` + regexp.QuoteMeta(user) + `(:\S+)?\s+(\S+)`).FindStringSubmatch(all)
	if chown == nil || !within(storageDir, chown[3]) {
		t.Errorf("no chown of %s (or a parent) to %s in the runtime stage", storageDir, user)
	}
}

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
