package migrate_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pgtest"
)

func sum(s string) string {
	b := sha256.Sum256([]byte(s))
	return hex.EncodeToString(b[:])
}

// with returns base with the files given added or replaced (an empty
// content removes the file).
func with(base map[string]string, files ...string) map[string]string {
	out := maps.Clone(base)
	for i := 0; i+1 < len(files); i += 2 {
		if files[i+1] == "" {
			delete(out, files[i])
		} else {
			out[files[i]] = files[i+1]
		}
	}
	return out
}

// A numbered schema and repeatable files that depend on it and on each
// other: views/a_top.sql is applied after views/z_base.sql because it
// requires it, and functions/a.sql (language sql) calls a function of a
// later file.
var repFiles = map[string]string{
	"0001_items.sql":   `CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL); INSERT INTO items VALUES (1, 'a'), (2, 'b');`,
	"functions/a.sql":  `CREATE OR REPLACE FUNCTION a() RETURNS int LANGUAGE sql AS 'SELECT b() + 1';`,
	"functions/b.sql":  `CREATE OR REPLACE FUNCTION b() RETURNS int LANGUAGE sql AS 'SELECT count(*)::int FROM items';`,
	"views/a_top.sql":  "-- The first item.\n-- requires: views/z_base.sql\nCREATE OR REPLACE VIEW a_top AS SELECT * FROM z_base LIMIT 1;",
	"views/z_base.sql": `CREATE OR REPLACE VIEW z_base AS SELECT id, name FROM items ORDER BY id;`,
	"policies/x.md":    `not a repeatable file`,
}

var repOrder = []string{"0001_items.sql", "functions/a.sql", "functions/b.sql", "views/z_base.sql", "views/a_top.sql"}

func scalar[T any](t *testing.T, db *pgtest.DB, sql string) T {
	t.Helper()
	var v T
	if err := db.Admin.QueryRow(context.Background(), sql).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// repeatables reads basalt.schema_repeatables as path -> checksum.
func repeatables(t *testing.T, db *pgtest.DB) map[string]string {
	t.Helper()
	rows, err := db.Admin.Query(context.Background(), `SELECT name, checksum FROM basalt.schema_repeatables WHERE source = 'app'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var n, s string
		if err := rows.Scan(&n, &s); err != nil {
			t.Fatal(err)
		}
		out[n] = s
	}
	return out
}

// TestRepeatablesApplyAfterNumbered: repeatable files run after the
// numbered ones, in path order except where a file requires another, and
// each is recorded with its checksum.
func TestRepeatablesApplyAfterNumbered(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	migs, err := migrate.Load(src(repFiles))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(repOrder, names(migs)); diff != "" {
		t.Errorf("load order (-want +got):\n%s", diff)
	}
	var logged []string
	applied, err := migrate.Up(ctx, db.Admin, func(s string) { logged = append(logged, s) }, src(repFiles))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(repOrder, names(applied)); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	if len(logged) != len(repOrder) || logged[1] != "applying app repeatable functions/a.sql" {
		t.Errorf("logged %q", logged)
	}
	if got := scalar[int](t, db, `SELECT a()`); got != 3 {
		t.Errorf("a() = %d, want 3", got)
	}
	if got := scalar[string](t, db, `SELECT name FROM a_top`); got != "a" {
		t.Errorf("a_top = %q", got)
	}
	want := map[string]string{}
	for _, n := range repOrder[1:] {
		want[n] = sum(repFiles[n])
	}
	if diff := cmp.Diff(want, repeatables(t, db)); diff != "" {
		t.Errorf("recorded checksums (-want +got):\n%s", diff)
	}
	if n := scalar[int](t, db, `SELECT count(*)::int FROM basalt.schema_migrations`); n != 1 {
		t.Errorf("schema_migrations has %d rows, want the numbered file only", n)
	}
	// Nothing changed: nothing runs.
	if again, err := migrate.Up(ctx, db.Admin, nil, src(repFiles)); err != nil || len(again) != 0 {
		t.Errorf("second run applied %v, %v", names(again), err)
	}
}

// TestChangedRepeatableAppliedAlone: a changed file is applied again, and
// no other; status names it first. A new numbered migration applies every
// repeatable file again.
func TestChangedRepeatableAppliedAlone(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	if _, err := migrate.Up(ctx, db.Admin, nil, src(repFiles)); err != nil {
		t.Fatal(err)
	}
	before := scalar[time.Time](t, db, `SELECT applied_at FROM basalt.schema_repeatables WHERE name = 'functions/a.sql'`)
	changed := with(repFiles, "functions/b.sql", `CREATE OR REPLACE FUNCTION b() RETURNS int LANGUAGE sql AS 'SELECT 40';`)

	sts, err := migrate.StatusOf(ctx, db.Admin, src(changed))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sts {
		got = append(got, fmt.Sprintf("%s changed=%v", s.Name, s.Changed))
	}
	want := []string{"0001_items.sql changed=false", "functions/a.sql changed=false", "functions/b.sql changed=true",
		"views/z_base.sql changed=false", "views/a_top.sql changed=false"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}

	applied, err := migrate.Up(ctx, db.Admin, nil, src(changed))
	if err != nil || cmp.Diff([]string{"functions/b.sql"}, names(applied)) != "" {
		t.Fatalf("applied %v, %v; want functions/b.sql alone", names(applied), err)
	}
	if got := scalar[int](t, db, `SELECT a()`); got != 41 {
		t.Errorf("a() = %d after b changed, want 41", got)
	}
	if got := repeatables(t, db)["functions/b.sql"]; got != sum(changed["functions/b.sql"]) {
		t.Errorf("recorded checksum of b %s, want the new content's", got)
	}
	if after := scalar[time.Time](t, db, `SELECT applied_at FROM basalt.schema_repeatables WHERE name = 'functions/a.sql'`); !after.Equal(before) {
		t.Errorf("functions/a.sql was applied again (%v, then %v)", before, after)
	}

	// A numbered migration may drop what a repeatable defines (here the
	// views, to change a column's type): the run applies them all again.
	more := with(changed, "0002_wider.sql", `DROP VIEW a_top, z_base; ALTER TABLE items ALTER COLUMN id TYPE bigint;`)
	applied, err = migrate.Up(ctx, db.Admin, nil, src(more))
	want = []string{"0002_wider.sql", "functions/a.sql", "functions/b.sql", "views/z_base.sql", "views/a_top.sql"}
	if err != nil || cmp.Diff(want, names(applied)) != "" {
		t.Fatalf("applied %v, %v; want %v", names(applied), err, want)
	}
	if got := scalar[string](t, db, `SELECT format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = 'a_top'::regclass AND attname = 'id'`); got != "bigint" {
		t.Errorf("a_top.id is %s, want the view rebuilt on the wider column", got)
	}
}

// TestFailingRepeatableRollsBackTheRun: a repeatable that fails, or a
// function body that does not check once all files ran, undoes every
// repeatable file of the run (a changed file applied before it included)
// and their records.
func TestFailingRepeatableRollsBackTheRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name, file, sql, want string
	}{
		{"statement fails", "views/z_base.sql", `CREATE OR REPLACE VIEW z_base AS SELECT nope FROM items;`, "apply app repeatable views/z_base.sql"},
		{"body does not check", "functions/b.sql", `CREATE OR REPLACE FUNCTION b() RETURNS int LANGUAGE sql AS 'SELECT count(*)::int FROM no_such_table';`,
			"check function b()"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := pgtest.NewEmptyDB(t)
			if _, err := migrate.Up(ctx, db.Admin, nil, src(repFiles)); err != nil {
				t.Fatal(err)
			}
			bad := with(repFiles, "functions/a.sql", `CREATE OR REPLACE FUNCTION a() RETURNS int LANGUAGE sql AS 'SELECT b() + 100';`,
				tc.file, tc.sql)
			applied, err := migrate.Up(ctx, db.Admin, nil, src(bad))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "no repeatable file of this run was applied") {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			if len(applied) != 0 {
				t.Errorf("applied %v", names(applied))
			}
			if got := scalar[int](t, db, `SELECT a()`); got != 3 {
				t.Errorf("a() = %d, want the functions as before the run", got)
			}
			want := map[string]string{}
			for _, n := range repOrder[1:] {
				want[n] = sum(repFiles[n])
			}
			if diff := cmp.Diff(want, repeatables(t, db)); diff != "" {
				t.Errorf("records changed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRepeatablesAfterNumberedEvenAfterAFailure: a numbered migration
// commits on its own; when the repeatable run after it fails, the next run
// still applies every repeatable file, not only the changed ones (the
// migration may have dropped what an unchanged file defines).
func TestRepeatablesAfterNumberedEvenAfterAFailure(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	if _, err := migrate.Up(ctx, db.Admin, nil, src(repFiles)); err != nil {
		t.Fatal(err)
	}
	good := with(repFiles, "0002_wider.sql", `DROP VIEW a_top, z_base; ALTER TABLE items ALTER COLUMN id TYPE bigint;`)
	bad := with(good, "functions/b.sql", `CREATE OR REPLACE FUNCTION b() RETURNS int LANGUAGE sql AS 'SELECT nope FROM items';`)
	applied, err := migrate.Up(ctx, db.Admin, nil, src(bad))
	if err == nil || cmp.Diff([]string{"0002_wider.sql"}, names(applied)) != "" {
		t.Fatalf("applied %v, %v; want 0002 and then a failure", names(applied), err)
	}
	if scalar[bool](t, db, `SELECT to_regclass('z_base') IS NOT NULL`) {
		t.Fatal("the views survived 0002")
	}
	applied, err = migrate.Up(ctx, db.Admin, nil, src(good))
	if err != nil || cmp.Diff(repOrder[1:], names(applied)) != "" {
		t.Fatalf("applied %v, %v; want every repeatable file", names(applied), err)
	}
	if got := scalar[string](t, db, `SELECT name FROM a_top`); got != "a" {
		t.Errorf("a_top = %q after the views were rebuilt", got)
	}
}

// TestRewrittenMigrationAccepted: a numbered file may be rewritten when it
// names the checksum a database recorded in a `-- replaces:` line; the
// record takes the new checksum and the file does not run again. Any other
// edit is still refused.
func TestRewrittenMigrationAccepted(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	const old = `CREATE TABLE items (id int PRIMARY KEY); CREATE FUNCTION n() RETURNS int LANGUAGE sql AS 'SELECT 1';`
	if _, err := migrate.Up(ctx, db.Admin, nil, src(map[string]string{"0001_items.sql": old})); err != nil {
		t.Fatal(err)
	}
	rewritten := "-- replaces: " + sum(old) + "\nCREATE TABLE items (id int PRIMARY KEY);"
	moved := map[string]string{"0001_items.sql": rewritten,
		"functions/n.sql": `CREATE OR REPLACE FUNCTION n() RETURNS int LANGUAGE sql AS 'SELECT 1';`}
	sts, err := migrate.StatusOf(ctx, db.Admin, src(moved))
	if err != nil || sts[0].Changed || sts[0].AppliedAt == nil {
		t.Fatalf("status of the rewritten file: %+v, %v", sts[0], err)
	}
	applied, err := migrate.Up(ctx, db.Admin, nil, src(moved))
	if err != nil || cmp.Diff([]string{"functions/n.sql"}, names(applied)) != "" {
		t.Fatalf("applied %v, %v; want the repeatable only", names(applied), err)
	}
	if got := scalar[string](t, db, `SELECT checksum FROM basalt.schema_migrations`); got != sum(rewritten) {
		t.Errorf("recorded %s, want the rewritten file's checksum", got)
	}
	edited := with(moved, "0001_items.sql", rewritten+" CREATE TABLE more (id int);")
	if _, err := migrate.Up(ctx, db.Admin, nil, src(edited)); !errors.Is(err, migrate.ErrChanged) {
		t.Errorf("an edit without replaces: %v, want ErrChanged", err)
	}
}

// TestDownWithRepeatables: down forgets every repeatable file, so a down
// file may drop what a repeatable defines (the rule: it drops the objects
// that use what it removes, with CASCADE), and the next up builds them
// again. A down file that breaks the rule fails and changes nothing.
func TestDownWithRepeatables(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	files := with(repFiles,
		"0002_note.sql", `ALTER TABLE items ADD COLUMN note text;`,
		"0002_note.down.sql", `ALTER TABLE items DROP COLUMN note;`,
		"views/notes.sql", `CREATE OR REPLACE VIEW notes AS SELECT id, note FROM items;`)
	if _, err := migrate.Up(ctx, db.Admin, nil, src(files)); err != nil {
		t.Fatal(err)
	}
	_, err := migrate.Down(ctx, db.Admin, src(files))
	if err == nil || !strings.Contains(err.Error(), "0002_note.down.sql") || !strings.Contains(err.Error(), "depend") {
		t.Fatalf("down without CASCADE: %v, want the dependency error", err)
	}
	if !scalar[bool](t, db, `SELECT to_regclass('notes') IS NOT NULL`) || len(repeatables(t, db)) != 5 {
		t.Fatal("a failed down changed the view or the records")
	}

	files["0002_note.down.sql"] = `ALTER TABLE items DROP COLUMN note CASCADE;`
	m, err := migrate.Down(ctx, db.Admin, src(files))
	if err != nil || m.Name != "0002_note.sql" {
		t.Fatalf("down: %s, %v", m.Name, err)
	}
	if scalar[bool](t, db, `SELECT to_regclass('notes') IS NOT NULL`) || len(repeatables(t, db)) != 0 {
		t.Errorf("after down: the view stayed or repeatables are still recorded (%v)", repeatables(t, db))
	}
	sts, err := migrate.StatusOf(ctx, db.Admin, src(files))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sts {
		if s.Repeatable && s.AppliedAt != nil {
			t.Errorf("status of %s after down: applied, want pending", s.Name)
		}
	}
	applied, err := migrate.Up(ctx, db.Admin, nil, src(files))
	if err != nil || len(applied) != 6 || applied[0].Name != "0002_note.sql" {
		t.Fatalf("up after down applied %v, %v", names(applied), err)
	}
	if !scalar[bool](t, db, `SELECT to_regclass('notes') IS NOT NULL`) || scalar[int](t, db, `SELECT a()`) != 3 {
		t.Error("up after down did not build the repeatables again")
	}
}

// TestGoneRepeatable: a repeatable whose file was deleted is reported
// missing, and the next up forgets it (its objects stay until a numbered
// migration drops them).
func TestGoneRepeatable(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	if _, err := migrate.Up(ctx, db.Admin, nil, src(repFiles)); err != nil {
		t.Fatal(err)
	}
	fewer := with(repFiles, "views/a_top.sql", "")
	sts, err := migrate.StatusOf(ctx, db.Admin, src(fewer))
	if err != nil {
		t.Fatal(err)
	}
	last := sts[len(sts)-1]
	if last.Name != "views/a_top.sql" || !last.Missing || !last.Repeatable {
		t.Errorf("last status %+v, want views/a_top.sql missing", last)
	}
	if applied, err := migrate.Up(ctx, db.Admin, nil, src(fewer)); err != nil || len(applied) != 0 {
		t.Fatalf("up: %v, %v", names(applied), err)
	}
	if _, ok := repeatables(t, db)["views/a_top.sql"]; ok {
		t.Error("the gone file is still recorded")
	}
}

func TestLoadRejectsBadRepeatables(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"unknown requirement", map[string]string{"views/a.sql": "-- requires: views/b.sql\nSELECT 1;"},
			"views/a.sql requires views/b.sql, which is not a repeatable file"},
		{"cycle", map[string]string{"views/a.sql": "-- requires: views/b.sql\n", "views/b.sql": "-- requires: views/a.sql\n", "views/c.sql": ""},
			"in a cycle: views/a.sql, views/b.sql"},
		{"requires in a numbered file", map[string]string{"0001_a.sql": "-- requires: views/b.sql\n", "views/b.sql": ""},
			"only a repeatable file declares"},
		{"replaces in a repeatable", map[string]string{"views/b.sql": "-- replaces: " + sum("x") + "\n"},
			"only a numbered migration declares"},
		{"replaces without a checksum", map[string]string{"0001_a.sql": "-- replaces: abc\n"}, "SHA-256 checksums"},
		{"down file for a repeatable", map[string]string{"views/b.down.sql": ""}, "has no down file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := migrate.Load(src(tt.files))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load = %v, want error containing %q", err, tt.want)
			}
		})
	}
}
