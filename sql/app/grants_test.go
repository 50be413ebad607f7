package app_test

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/sql/platform"
)

// TestGrantsAreExplicit: Backline grants every table, view and function it
// exposes itself. Since 2026-10-30 Supabase's default privileges give the
// API roles nothing on a new table in public (sql/platform 0028), so a
// database built that way must end with the very privileges of one built
// under the earlier defaults (BASALT_PUBLIC_DEFAULT_GRANTS=true), which
// Backline's migrations were written against.
func TestGrantsAreExplicit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	got, err := migrate.TakeSnapshot(ctx, pgtest.NewDB(t).Admin)
	if err != nil {
		t.Fatal(err)
	}
	legacy := pgtest.NewEmptyDB(t)
	if _, err := migrate.Up(ctx, legacy.Admin, nil, platform.Source(true), migrate.Source{Name: "app", FS: os.DirFS(".")}); err != nil {
		t.Fatalf("build under the earlier default privileges: %v", err)
	}
	want, err := migrate.TakeSnapshot(ctx, legacy.Admin)
	if err != nil {
		t.Fatal(err)
	}
	var diffs []string
	for _, c := range migrate.Compare(got, want) {
		d := c.Object + ":"
		if c.Live != nil {
			d += " explicit grants give " + *c.Live + ";"
		}
		if c.Files != nil {
			d += " the earlier defaults gave " + *c.Files
		}
		diffs = append(diffs, d)
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%d objects differ:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}
