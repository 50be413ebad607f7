package gentypes_test

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/gentypes"
	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var update = flag.Bool("update", false, "rewrite the golden files")

// fixtureDB is an empty database with testdata/schema.sql applied.
func fixtureDB(t *testing.T) *pgtest.DB {
	t.Helper()
	db := pgtest.NewEmptyDB(t)
	sql, err := os.ReadFile(filepath.Join("testdata", "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Admin.Exec(context.Background(), string(sql)); err != nil {
		t.Fatalf("apply schema.sql: %v", err)
	}
	return db
}

// TestGolden compares the generated types of the fixture schema with the
// golden files (go test -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	t.Parallel()
	db := fixtureDB(t)
	tests := []struct {
		golden  string
		schemas []string
	}{
		{"public.ts", []string{"public"}},
		{"two_schemas.ts", []string{"public", "extra", "no_such_schema"}},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			got, err := gentypes.TypeScript(context.Background(), db.Admin, tc.schemas)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s differs (-want +got; go test -run TestGolden -update rewrites it):\n%s", path, diff)
			}
		})
	}
}

// TestTypeScriptCompiles type-checks the golden files with the frontend's
// TypeScript and supabase-js: testdata/consumer.ts reads, embeds, writes
// and calls through createClient<Database> and asserts the result types,
// so a wrong nullability, cardinality or optional field fails here.
func TestTypeScriptCompiles(t *testing.T) {
	t.Parallel()
	root, err := pgtest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	modules := filepath.Join(root, "frontend", "node_modules")
	tsc := filepath.Join(modules, "typescript", "bin", "tsc")
	node, nodeErr := exec.LookPath("node")
	if _, err := os.Stat(tsc); err != nil || nodeErr != nil {
		msg := "needs node and frontend/node_modules (npm ci in frontend/)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"public.ts", "two_schemas.ts", "consumer.ts"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config := `{"compilerOptions": {"strict": true, "noEmit": true, "target": "ES2022", "module": "ESNext",
		"moduleResolution": "bundler", "skipLibCheck": true}, "files": ["consumer.ts"]}`
	if err := os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(node, tsc, "-p", dir).CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}
