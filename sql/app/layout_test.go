package app_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/sql/platform"
)

// definition finds what a statement at the start of a line defines.
var definition = regexp.MustCompile(`(?mi)^CREATE\s+(?:OR\s+REPLACE\s+)?(FUNCTION|VIEW|POLICY)\s+("[^"]+"|[a-z_0-9.]+)(?:\s+ON\s+([a-z_0-9.]+))?`)

// TestOneHomePerDefinition: every function, view and policy is defined in
// one file, and a repeatable file is named after what it defines:
// functions/<schema>.<name>.sql, views/<schema>.<name>.sql,
// policies/<schema>.<table>.sql. So no numbered migration redefines what
// another file holds, and `grep "FUNCTION backline.settle_stream"` finds the
// rule that runs.
func TestOneHomePerDefinition(t *testing.T) {
	t.Parallel()
	homes := map[string][]string{}
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sql") || strings.HasSuffix(p, ".down.sql") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		p = filepath.ToSlash(p)
		folder, base := path.Split(p)
		name := strings.TrimSuffix(base, ".sql")
		for _, m := range definition.FindAllStringSubmatch(string(b), -1) {
			kind, object := strings.ToLower(m[1]), m[2]
			if kind == "policy" {
				object = m[3] + " " + object
			}
			homes[kind+" "+object] = append(homes[kind+" "+object], p)
			named := object
			if kind == "policy" {
				named = m[3]
			}
			switch home := map[string]string{"function": "functions/", "view": "views/", "policy": "policies/"}[kind]; {
			case folder == "":
				// A function an index is built on stays with its index.
				if kind != "function" {
					t.Errorf("numbered migration %s defines %s %s: it belongs in %s", p, kind, object, home)
				}
			case folder != home:
				t.Errorf("%s defines %s %s: it belongs in %s", p, kind, object, home)
			case named != name:
				t.Errorf("%s defines %s %s: a repeatable file holds what it is named after", p, kind, object)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(homes) < 100 {
		t.Fatalf("found %d definitions; the pattern no longer matches the files", len(homes))
	}
	for object, files := range homes {
		if len(files) > 1 {
			t.Errorf("%s is defined in %d files: %v", object, len(files), files)
		}
	}
	if got := homes["function backline.settle_stream"]; len(got) != 1 || got[0] != "functions/backline.settle_stream.sql" {
		t.Errorf("backline.settle_stream is in %v", got)
	}
}

// layoutBase is the last commit whose sql/app held every function, trigger
// and policy inside the numbered migrations.
const layoutBase = "131477065f5da421b42979ca5204d75c168e1a03"

// filesAt reads sql/app's numbered migrations as they were at commit, up to
// and including version last ("" for all of them).
func filesAt(t *testing.T, commit, last string) fstest.MapFS {
	t.Helper()
	root, err := pgtest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
		var exit *exec.ExitError
		if errors.As(err, &exit) || errors.Is(err, exec.ErrNotFound) {
			t.Skipf("needs the repository's history (git %s): %v", strings.Join(args, " "), err)
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	git("cat-file", "-e", commit+"^{commit}")
	fsys := fstest.MapFS{}
	for _, p := range strings.Fields(git("ls-tree", "--name-only", commit, "sql/app/")) {
		name := path.Base(p)
		if !strings.HasSuffix(name, ".sql") || (last != "" && name[:4] > last) {
			continue
		}
		fsys[name] = &fstest.MapFile{Data: []byte(git("show", commit+":"+p))}
	}
	return fsys
}

// TestUpgradeFromNumberedLayout: a database migrated with the files as they
// were before functions, triggers and policies moved to their own files
// (fully, or up to 0011) upgrades with `up` to exactly the schema a new
// database gets, and then has nothing pending.
func TestUpgradeFromNumberedLayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	want, err := migrate.TakeSnapshot(ctx, pgtest.NewDB(t).Admin)
	if err != nil {
		t.Fatal(err)
	}
	plat := migrate.Source{Name: "platform", FS: platform.FS}
	current := migrate.Source{Name: "app", FS: os.DirFS(".")}
	// One after the other: the platform migrations write cluster-wide role
	// settings, which two databases cannot change at the same time.
	for _, last := range []string{"", "0011"} {
		db := pgtest.NewEmptyDB(t)
		old := migrate.Source{Name: "app", FS: filesAt(t, layoutBase, last)}
		if _, err := migrate.Up(ctx, db.Admin, nil, plat, old); err != nil {
			t.Fatalf("build with the files of %s (up to %q): %v", layoutBase, last, err)
		}
		if _, err := migrate.Up(ctx, db.Admin, nil, plat, current); err != nil {
			t.Fatalf("upgrade from the files of %s (up to %q): %v", layoutBase, last, err)
		}
		got, err := migrate.TakeSnapshot(ctx, db.Admin)
		if err != nil {
			t.Fatal(err)
		}
		var diffs []string
		for _, c := range migrate.Compare(got, want) {
			diffs = append(diffs, c.Object)
		}
		sort.Strings(diffs)
		if len(diffs) > 0 {
			t.Errorf("upgraded from up to %q: %d objects differ from a new database: %v", last, len(diffs), diffs)
		}
		sts, err := migrate.StatusOf(ctx, db.Admin, plat, current)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sts {
			if s.AppliedAt == nil || s.Changed || s.Missing {
				t.Errorf("after the upgrade from up to %q: %s/%s applied=%v changed=%v missing=%v",
					last, s.Source, s.Name, s.AppliedAt != nil, s.Changed, s.Missing)
			}
		}
	}
}
