package arch

import (
	"bufio"
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// services are the top-level service trees; a package belongs to the
// service whose folder holds it.
var services = []string{"auth", "rest", "storage", "functions", "realtime", "studio", "pgmodules"}

// app is the app built on Basalt: its Go functions and its SQL. It lives
// under functions/ for the functions service to serve, but it is no part
// of that service.
var app = []string{"functions/backline", "sql/app"}

// groundFloor is what every other package stands on: the shared
// primitives (internal/), the gateway in front of the services, and the
// platform's embedded SQL. It imports nothing above it: no service, no
// package built on services (appkit, gentypes, backup, the binary), no app.
var groundFloor = []string{"internal", "gateway", "sql/platform"}

// seam is the one platform package that may import the app, and then only
// the app's root package.
const (
	seam    = "cmd/basalt"
	appRoot = "functions/backline"
)

func TestServicesNeverImportEachOther(t *testing.T) {
	for _, v := range crossServiceImports(loadModule(t)) {
		t.Error(v)
	}
}

func TestNoPlatformPackageImportsTheApp(t *testing.T) {
	for _, v := range appImports(loadModule(t)) {
		t.Error(v)
	}
}

func TestGroundFloorImportsOnlyTheGroundFloor(t *testing.T) {
	for _, v := range groundFloorImports(loadModule(t)) {
		t.Error(v)
	}
}

// TestImportRulesSeeViolations feeds the rules a made-up module that breaks
// each of them, so that a rule that stopped matching anything (after a
// folder was renamed, say) fails here instead of passing quietly.
func TestImportRulesSeeViolations(t *testing.T) {
	mod := module{path: "example.com/m", imports: map[string][]string{
		"rest":                     {"storage", "rpc", "internal/pg"},
		"realtime/changes":         {"auth/mail"},
		"functions/testfns":        {"functions"},
		"functions/backline":       {"functions", "storage"},
		"functions/backline/audio": {"functions/backline"},
		"gateway":                  {"rest", "storage"},
		"internal/pg":              {"functions/backline/provider"},
		"cmd/basalt":               {"functions/backline", "functions/backline/demomedia"},
		"internal/gentypes":        {"rest", "internal/pgtest"},
		"internal/pgtest":          {"internal/pg", "sql/platform", "internal/migrate"},
		"internal/backup":          {"storage/s3backend"},
		"internal/telemetry":       {"gateway", "appkit"},
		"gateway/tokencache":       {"internal/jwt", "realtime/changes"},
		"sql/platform":             {"gentypes"},
		"gentypes":                 {"rest", "internal/pg"},
		"appkit":                   {"functions", "internal/pg"},
	}}
	check := func(rule string, got, want []string) {
		t.Helper()
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n%s\nwant:\n%s", rule, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	check("cross-service imports", crossServiceImports(mod), []string{
		"realtime/changes imports auth/mail: services never import each other",
		"rest imports storage: services never import each other",
	})
	check("app imports", appImports(mod), []string{
		"cmd/basalt imports functions/backline/demomedia: the binary names the app through its root package only",
		"internal/pg imports functions/backline/provider: no platform package imports the app",
	})
	check("ground-floor imports", groundFloorImports(mod), []string{
		"gateway imports rest: the ground floor (internal/, gateway/, sql/platform) imports only the ground floor",
		"gateway imports storage: the ground floor (internal/, gateway/, sql/platform) imports only the ground floor",
		"gateway/tokencache imports realtime/changes: the ground floor (internal/, gateway/, sql/platform) imports only the ground floor",
		"internal/backup imports storage/s3backend: the ground floor (internal/, gateway/, sql/platform) imports only the ground floor",
		"internal/gentypes imports rest: the ground floor (internal/, gateway/, sql/platform) imports only the ground floor",
		"internal/pg imports functions/backline/provider: the ground floor (internal/, gateway/, sql/platform) imports only the ground floor",
		"internal/telemetry imports appkit: the ground floor (internal/, gateway/, sql/platform) imports only the ground floor",
		"sql/platform imports gentypes: the ground floor (internal/, gateway/, sql/platform) imports only the ground floor",
	})
}

// TestModuleIsRead guards the rule tests against passing on an empty or
// misread module: the packages they are about must be there, with imports
// they are known to have.
func TestModuleIsRead(t *testing.T) {
	mod := loadModule(t)
	for _, p := range append(append([]string{"gateway", seam, "internal/pg", "internal/pgtest"}, services...), app...) {
		if _, ok := mod.imports[p]; !ok {
			t.Errorf("package %s not found in module %s", p, mod.path)
		}
	}
	for _, want := range [][2]string{{seam, "rest"}, {seam, appRoot}, {appRoot, "functions"}, {"internal/pgtest", "sql/platform"}, {"gateway", "internal/jwt"}} {
		if !contains(mod.imports[want[0]], want[1]) {
			t.Errorf("%s does not import %s: imports are misread", want[0], want[1])
		}
	}
}

// module is the packages of a Go module, by path relative to the module
// root, each with the module packages it imports (also relative).
type module struct {
	path    string
	imports map[string][]string
}

// crossServiceImports lists every import from one service's tree into
// another's, sorted.
func crossServiceImports(m module) []string {
	var out []string
	for pkg, imports := range m.imports {
		for _, imp := range imports {
			if from, to := serviceOf(pkg), serviceOf(imp); from != "" && to != "" && from != to {
				out = append(out, pkg+" imports "+imp+": services never import each other")
			}
		}
	}
	sort.Strings(out)
	return out
}

// appImports lists every import of the app by a platform package, sorted:
// any at all outside the seam, and at the seam anything but the app's root.
func appImports(m module) []string {
	var out []string
	for pkg, imports := range m.imports {
		for _, imp := range imports {
			switch {
			case !in(imp, app) || in(pkg, app):
			case pkg != seam:
				out = append(out, pkg+" imports "+imp+": no platform package imports the app")
			case imp != appRoot:
				out = append(out, pkg+" imports "+imp+": the binary names the app through its root package only")
			}
		}
	}
	sort.Strings(out)
	return out
}

// groundFloorImports lists every import of a ground-floor package from
// outside the ground floor, sorted.
func groundFloorImports(m module) []string {
	var out []string
	for pkg, imports := range m.imports {
		if !in(pkg, groundFloor) {
			continue
		}
		for _, imp := range imports {
			if !in(imp, groundFloor) {
				out = append(out, pkg+" imports "+imp+": the ground floor (internal/, gateway/, sql/platform) imports only the ground floor")
			}
		}
	}
	sort.Strings(out)
	return out
}

// serviceOf is the service whose tree holds pkg, or "" (the app is no
// service, though it lives under functions/).
func serviceOf(pkg string) string {
	if in(pkg, app) {
		return ""
	}
	for _, s := range services {
		if in(pkg, []string{s}) {
			return s
		}
	}
	return ""
}

// in reports whether pkg is one of trees or below one.
func in(pkg string, trees []string) bool {
	for _, t := range trees {
		if pkg == t || strings.HasPrefix(pkg, t+"/") {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// loadModule reads every package of the module this test runs in, the way
// `go list ./...` sees them: folders starting with '.' or '_', testdata and
// nested modules are left out (and node_modules, which holds no Go of
// ours), and files are chosen by the build tags of this platform. Test
// files' imports count too: a test is code a reader must follow as well.
func loadModule(t *testing.T) module {
	t.Helper()
	root, path := moduleRoot(t)
	m := module{path: path, imports: map[string][]string{}}
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if dir != root {
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		p, err := build.Default.ImportDir(dir, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, dir)
		pkg := filepath.ToSlash(rel)
		var imports []string
		for _, list := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
			for _, imp := range list {
				if r, ok := strings.CutPrefix(imp, path+"/"); ok && r != pkg && !contains(imports, r) {
					imports = append(imports, r)
				}
			}
		}
		m.imports[pkg] = imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// moduleRoot finds go.mod above the test's folder and reads the module path.
func moduleRoot(t *testing.T) (dir, path string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if p, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(p), `"`)
				}
			}
			t.Fatalf("no module line in %s", filepath.Join(dir, "go.mod"))
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}
