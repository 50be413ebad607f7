package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
)

// TestDevStartsFromTemplate: the first `basalt dev` on a machine builds the
// template cluster; a later fresh data directory starts from a copy of it,
// with every migration already applied and the seeds run; and what one
// copy writes, another copy does not see.
func TestDevStartsFromTemplate(t *testing.T) {
	tmp := devTempDir(t, "btpl")
	sqlDir := filepath.Join(tmp, "sql")
	writeFiles(t, sqlDir, map[string]string{
		"app/0001_notes.sql": `CREATE TABLE public.notes (id int PRIMARY KEY, body text);`,
		"seed/01_notes.sql":  `INSERT INTO public.notes VALUES (1, 'seeded') ON CONFLICT (id) DO NOTHING;`,
	})
	vars := map[string]string{
		"BASALT_API_PORT": freePort(t), "BASALT_DB_PORT": freePort(t), "BASALT_APP_PORT": "0",
		"BASALT_SQL_DIR": sqlDir, "XDG_CACHE_HOME": filepath.Join(tmp, "cache"),
	}
	getenv := func(k string) string { return vars[k] }
	ctx := context.Background()
	// notes lists the ids in a running dev's notes table.
	notes := func(dataDir string) string {
		t.Helper()
		st, err := readState(dataDir)
		if err != nil {
			t.Fatal(err)
		}
		db, err := pg.Connect(ctx, st.DBURL, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var ids string
		if err := db.QueryRow(ctx, `SELECT string_agg(id::text, ',' ORDER BY id) FROM public.notes`).Scan(&ids); err != nil {
			t.Fatal(err)
		}
		return ids
	}

	first := filepath.Join(tmp, "first")
	stop, out := devRun(t, getenv, first)
	if !strings.Contains(out.String(), "building the postgres template cluster") {
		t.Errorf("the first start built no template:\n%s", out.String())
	}
	if got := notes(first); got != "1" {
		t.Errorf("first start: notes %q, want the seeded row 1", got)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	second := filepath.Join(tmp, "second")
	stop, out = devRun(t, getenv, second)
	for _, want := range []string{"postgres cluster copied from the template", `"migrations up to date","applied":0`, `"applied seed","file":"01_notes.sql"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("second start: no %q in its log:\n%s", want, out.String())
		}
	}
	if got := notes(second); got != "1" {
		t.Errorf("second start: notes %q, want the seeded row 1", got)
	}
	st, err := readState(second)
	if err != nil {
		t.Fatal(err)
	}
	db, err := pg.Connect(ctx, st.DBURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(ctx, `INSERT INTO public.notes VALUES (2, 'only in the second')`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	third := filepath.Join(tmp, "third")
	stop, out = devRun(t, getenv, third)
	if !strings.Contains(out.String(), "postgres cluster copied from the template") {
		t.Errorf("third start did not copy the template:\n%s", out.String())
	}
	if got := notes(third); got != "1" {
		t.Errorf("third start: notes %q, want only the seeded row (the second's row is its own)", got)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// TestTemplateKey: a template is found again for the same binaries,
// settings and migrations, and never for a changed migration, an added
// one, another setting or another password.
func TestTemplateKey(t *testing.T) {
	bin, err := pgcluster.FindBinDir()
	if err != nil {
		t.Skip(err)
	}
	cluster := func(settings map[string]string, password string) *pgcluster.Cluster {
		return &pgcluster.Cluster{BinDir: bin, Superuser: "postgres", Password: password, Settings: settings}
	}
	tmpl := func(files map[string]string) clusterTemplate {
		fsys := fstest.MapFS{}
		for name, body := range files {
			fsys[name] = &fstest.MapFile{Data: []byte(body)}
		}
		return clusterTemplate{root: t.TempDir(), sources: []migrate.Source{{Name: "app", FS: fsys}}, log: slog.New(slog.DiscardHandler)}
	}
	key := func(tp clusterTemplate, c *pgcluster.Cluster) string {
		t.Helper()
		k, err := tp.key(c)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	one := map[string]string{"0001_a.sql": "CREATE TABLE a ();"}
	settings := map[string]string{"wal_level": "logical", "max_connections": "200"}
	base := key(tmpl(one), cluster(settings, "postgres"))
	if again := key(tmpl(map[string]string{"0001_a.sql": "CREATE TABLE a ();"}), cluster(map[string]string{"max_connections": "200", "wal_level": "logical"}, "postgres")); again != base {
		t.Errorf("same inputs gave another key: %s, %s", base, again)
	}
	for name, k := range map[string]string{
		"a changed migration": key(tmpl(map[string]string{"0001_a.sql": "CREATE TABLE a (id int);"}), cluster(settings, "postgres")),
		"an added migration":  key(tmpl(map[string]string{"0001_a.sql": "CREATE TABLE a ();", "0002_b.sql": "CREATE TABLE b ();"}), cluster(settings, "postgres")),
		"another setting":     key(tmpl(one), cluster(map[string]string{"wal_level": "logical", "max_connections": "100"}, "postgres")),
		"another password":    key(tmpl(one), cluster(settings, "secret")),
		"an added setting":    key(tmpl(one), cluster(map[string]string{"wal_level": "logical", "max_connections": "200", "logging_collector": "on"}, "postgres")),
		"other default grants": func() string {
			tp := tmpl(one)
			tp.sources[0].After = "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO anon"
			return key(tp, cluster(settings, "postgres"))
		}(),
	} {
		if k == base {
			t.Errorf("%s kept the key %s", name, base)
		}
	}
}

// TestTemplatePrune: building a template leaves the newest few in the
// cache, and a build folder a killed start left long ago goes too.
func TestTemplatePrune(t *testing.T) {
	root := t.TempDir()
	now := time.Now()
	for i := range 6 {
		dir := filepath.Join(root, fmt.Sprintf("key%d", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// key0 is the newest.
		when := now.Add(-time.Duration(i) * time.Hour)
		if err := os.Chtimes(dir, when, when); err != nil {
			t.Fatal(err)
		}
	}
	for name, age := range map[string]time.Duration{".build-old": 2 * time.Hour, ".build-now": 0} {
		dir := filepath.Join(root, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(dir, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	clusterTemplate{root: root, log: slog.New(slog.DiscardHandler)}.prune(4)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if got, want := strings.Join(left, " "), ".build-now key0 key1 key2 key3"; got != want {
		t.Errorf("left %q, want %q", got, want)
	}
}
