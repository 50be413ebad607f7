package pgcluster_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/basaltdev/basalt/internal/pgcluster"
)

// TestCopyCluster: a copy holds the data directory's files and modes but not
// the files of one run (its log, its options), and it refuses to overwrite
// a cluster.
func TestCopyCluster(t *testing.T) {
	c := newCluster(t)
	files := map[string]string{
		"PG_VERSION":              "15\n",
		"base/5/1259":             "catalog",
		"global/pg_control":       "control",
		"postgresql.conf":         "wal_level = logical\n",
		"server.log":              "a run's log",
		"postmaster.opts":         "postgres -p 5432",
		"current_logfiles":        "jsonlog log/postgresql-Sat.json\n",
		"log/postgresql-Sat.json": `{"message":"a run's server log"}`,
	}
	for name, body := range files {
		p := filepath.Join(c.DataDir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(c.DataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	tmpl := filepath.Join(t.TempDir(), "template")
	if err := c.CopyTo(tmpl); err != nil {
		t.Fatal(err)
	}
	fresh := &pgcluster.Cluster{BinDir: c.BinDir, DataDir: filepath.Join(t.TempDir(), "pg")}
	if err := fresh.CopyFrom(tmpl); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		b, err := os.ReadFile(filepath.Join(fresh.DataDir, name))
		switch name {
		case "server.log", "postmaster.opts", "current_logfiles", "log/postgresql-Sat.json":
			if !os.IsNotExist(err) {
				t.Errorf("%s was copied (%v)", name, err)
			}
		default:
			if err != nil || string(b) != body {
				t.Errorf("%s: %q, %v; want %q", name, b, err, body)
			}
		}
	}
	if st, err := os.Stat(filepath.Join(fresh.DataDir, "log")); err != nil || !st.IsDir() {
		t.Errorf("the server log's folder was not kept: %v", err)
	}
	if st, err := os.Stat(fresh.DataDir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("copy's data directory: %v, %v; want mode 0700", st.Mode(), err)
	}
	if err := fresh.CopyFrom(tmpl); err == nil {
		t.Error("a second copy over a cluster succeeded")
	}
}
