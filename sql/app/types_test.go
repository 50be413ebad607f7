package app_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basaltdev/basalt/gentypes"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// typesFile is the frontend's generated Database type.
const typesFile = "frontend/src/lib/database.types.ts"

// TestDatabaseTypesUpToDate fails when the committed frontend types are not
// what the migrations give, byte for byte: a migration changed without
// regenerating them.
func TestDatabaseTypesUpToDate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	got, err := gentypes.TypeScript(e.ctx, e.db.Admin, []string{"public"})
	if err != nil {
		t.Fatal(err)
	}
	root, err := pgtest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(root, typesFile))
	if err != nil {
		t.Fatalf("%v: run `just gen-types` to create it", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: the migrations give other types. Run `just gen-types` and commit the result.\n%s",
			typesFile, firstDifference(string(want), string(got)))
	}
}

// firstDifference shows the first line where the committed and the
// generated text differ.
func firstDifference(committed, generated string) string {
	a, b := strings.Split(committed, "\n"), strings.Split(generated, "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y || i >= len(a) || i >= len(b) {
			return fmt.Sprintf("line %d\n  committed: %q\n  generated: %q", i+1, x, y)
		}
	}
	return ""
}
