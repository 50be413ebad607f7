package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func src(files map[string]string) migrate.Source {
	fsys := fstest.MapFS{}
	for name, sql := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(sql)}
	}
	return migrate.Source{Name: "app", FS: fsys}
}

func names(ms []migrate.Migration) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

var files = map[string]string{
	"0001_items.sql":  `CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL);`,
	"0002_seed.sql":   `INSERT INTO items VALUES (1, 'a'), (2, 'b');`,
	"0010_index.sql":  `CREATE INDEX items_name ON items (name);`,
	"README.md":       `not a migration`,
	"0003_column.sql": `ALTER TABLE items ADD COLUMN note text;`,
}

func TestUpFreshThenRepeat(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	var logged []string
	applied, err := migrate.Up(ctx, db.Admin, func(s string) { logged = append(logged, s) }, src(files))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0001_items.sql", "0002_seed.sql", "0003_column.sql", "0010_index.sql"}
	if diff := cmp.Diff(want, names(applied)); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	if len(logged) != 4 {
		t.Errorf("logged %d lines, want 4: %q", len(logged), logged)
	}
	var n int
	if err := db.Admin.QueryRow(ctx, `SELECT count(*) FROM items WHERE note IS NULL`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("items: %d, %v", n, err)
	}

	// Repeat: nothing to do, and the seed is not inserted twice.
	applied, err = migrate.Up(ctx, db.Admin, nil, src(files))
	if err != nil || len(applied) != 0 {
		t.Fatalf("second run applied %v, err %v; want nothing", names(applied), err)
	}
	if err := db.Admin.QueryRow(ctx, `SELECT count(*) FROM basalt.schema_migrations WHERE source = 'app'`).Scan(&n); err != nil || n != 4 {
		t.Fatalf("recorded migrations: %d, %v", n, err)
	}

	// A new file is picked up on the next run.
	more := map[string]string{"0011_more.sql": `INSERT INTO items VALUES (3, 'c');`}
	for k, v := range files {
		more[k] = v
	}
	applied, err = migrate.Up(ctx, db.Admin, nil, src(more))
	if err != nil || cmp.Diff([]string{"0011_more.sql"}, names(applied)) != "" {
		t.Fatalf("third run applied %v, err %v", names(applied), err)
	}

	sts, err := migrate.StatusOf(ctx, db.Admin, src(more))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sts {
		if s.AppliedAt == nil || s.Changed {
			t.Errorf("status of %s: applied %v changed %v", s.Name, s.AppliedAt, s.Changed)
		}
	}
}

func TestEditedMigrationRefused(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	if _, err := migrate.Up(ctx, db.Admin, nil, src(files)); err != nil {
		t.Fatal(err)
	}
	edited := map[string]string{"0004_new.sql": `CREATE TABLE should_not_exist (id int);`}
	for k, v := range files {
		edited[k] = v
	}
	edited["0002_seed.sql"] = `INSERT INTO items VALUES (1, 'a'), (2, 'b'), (3, 'c');`
	applied, err := migrate.Up(ctx, db.Admin, nil, src(edited))
	if !errors.Is(err, migrate.ErrChanged) {
		t.Fatalf("err = %v, want ErrChanged", err)
	}
	if len(applied) != 0 {
		t.Errorf("applied %v after refusing an edited file", names(applied))
	}
	for _, want := range []string{"0002_seed.sql", "was edited after it was applied", "add a new one"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	var exists bool
	if err := db.Admin.QueryRow(ctx, `SELECT to_regclass('public.should_not_exist') IS NOT NULL`).Scan(&exists); err != nil || exists {
		t.Errorf("a later migration ran after the refusal (exists=%v, err=%v)", exists, err)
	}
	sts, err := migrate.StatusOf(ctx, db.Admin, src(edited))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sts {
		if got := s.Changed; got != (s.Name == "0002_seed.sql") {
			t.Errorf("status %s changed=%v", s.Name, got)
		}
	}
}

func TestFailingMigrationRollsBackAlone(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	bad := map[string]string{
		"0001_ok.sql":  `CREATE TABLE ok_table (id int);`,
		"0002_bad.sql": `CREATE TABLE half (id int); SELECT no_such_function();`,
	}
	applied, err := migrate.Up(ctx, db.Admin, nil, src(bad))
	if err == nil || !strings.Contains(err.Error(), "0002_bad.sql") {
		t.Fatalf("err = %v, want failure naming 0002_bad.sql", err)
	}
	if cmp.Diff([]string{"0001_ok.sql"}, names(applied)) != "" {
		t.Errorf("applied %v", names(applied))
	}
	var half bool
	if err := db.Admin.QueryRow(ctx, `SELECT to_regclass('public.half') IS NOT NULL`).Scan(&half); err != nil || half {
		t.Errorf("the failing file's first statement survived: %v %v", half, err)
	}
}

func TestConcurrentRunners(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	// The first file sleeps so the runners really overlap; without the lock
	// the second would try to create the table again and fail.
	slow := map[string]string{
		"0001_slow.sql":  `SELECT pg_sleep(0.3); CREATE TABLE counted (id int);`,
		"0002_count.sql": `INSERT INTO counted VALUES (1);`,
	}
	const runners = 4
	var wg sync.WaitGroup
	results := make([][]migrate.Migration, runners)
	errs := make([]error, runners)
	for i := range runners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = migrate.Up(ctx, db.Admin, nil, src(slow))
		}()
	}
	wg.Wait()
	total := 0
	for i := range runners {
		if errs[i] != nil {
			t.Errorf("runner %d: %v", i, errs[i])
		}
		total += len(results[i])
	}
	if total != 2 {
		t.Errorf("files applied %d times in total, want 2 (each exactly once)", total)
	}
	var n int
	if err := db.Admin.QueryRow(ctx, `SELECT count(*) FROM counted`).Scan(&n); err != nil || n != 1 {
		t.Errorf("counted rows = %d (%v), want 1", n, err)
	}
}

func TestLoadRejectsBadNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no version separator", map[string]string{"items.sql": ""}, "VERSION_description.sql"},
		{"duplicate version", map[string]string{"0001_a.sql": "", "0001_b.sql": ""}, "share version 0001"},
		{"down file without its migration", map[string]string{"0001_a.sql": "", "0002_b.down.sql": ""}, `has no migration "0002_b.sql"`},
		{"down file named after another description", map[string]string{"0001_a.sql": "", "0001_b.down.sql": ""}, `must be named "0001_a.down.sql"`},
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

// withDowns is files plus down files for two of them.
func withDowns() map[string]string {
	out := map[string]string{
		"0003_column.down.sql": `ALTER TABLE items DROP COLUMN note;`,
		"0010_index.down.sql":  `DROP INDEX items_name;`,
	}
	for k, v := range files {
		out[k] = v
	}
	return out
}

// TestDownFilesNotAppliedGoingUp: .down.sql files ride along with their
// migration and are never run by Up.
func TestDownFilesNotAppliedGoingUp(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	applied, err := migrate.Up(ctx, db.Admin, nil, src(withDowns()))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0001_items.sql", "0002_seed.sql", "0003_column.sql", "0010_index.sql"}
	if diff := cmp.Diff(want, names(applied)); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	var note, index bool
	if err := db.Admin.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'items'::regclass AND attname = 'note'),
		to_regclass('items_name') IS NOT NULL`).Scan(&note, &index); err != nil || !note || !index {
		t.Errorf("a down file ran going up: note column %v, index %v (%v)", note, index, err)
	}
	migs, err := migrate.Load(src(withDowns()))
	if err != nil {
		t.Fatal(err)
	}
	downs := map[string]string{}
	for _, m := range migs {
		downs[m.Name] = m.DownName
	}
	wantDowns := map[string]string{"0001_items.sql": "", "0002_seed.sql": "", "0003_column.sql": "0003_column.down.sql", "0010_index.sql": "0010_index.down.sql"}
	if diff := cmp.Diff(wantDowns, downs); diff != "" {
		t.Errorf("down files (-want +got):\n%s", diff)
	}
	// A down file added later does not make an applied migration "edited".
	if _, err := migrate.Up(ctx, db.Admin, nil, src(withDowns())); err != nil {
		t.Errorf("re-run with down files: %v", err)
	}
}

// TestDown undoes the last applied migration, one at a time, and refuses
// one without a down file.
func TestDown(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	if _, err := migrate.Down(ctx, db.Admin, src(withDowns())); !errors.Is(err, migrate.ErrNothingApplied) {
		t.Fatalf("down on an empty database: %v, want ErrNothingApplied", err)
	}
	if _, err := migrate.Up(ctx, db.Admin, nil, src(withDowns())); err != nil {
		t.Fatal(err)
	}
	exists := func(sql string) bool {
		var b bool
		if err := db.Admin.QueryRow(ctx, sql).Scan(&b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	const hasIndex = `SELECT to_regclass('items_name') IS NOT NULL`
	const hasNote = `SELECT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'items'::regclass AND attname = 'note')`
	m, err := migrate.Down(ctx, db.Admin, src(withDowns()))
	if err != nil || m.Name != "0010_index.sql" {
		t.Fatalf("first down: %s, %v; want 0010_index.sql", m.Name, err)
	}
	if exists(hasIndex) || !exists(hasNote) {
		t.Errorf("after undoing 0010: index %v (want false), note %v (want true)", exists(hasIndex), exists(hasNote))
	}
	m, err = migrate.Down(ctx, db.Admin, src(withDowns()))
	if err != nil || m.Name != "0003_column.sql" || exists(hasNote) {
		t.Fatalf("second down: %s, %v, note column %v; want 0003_column.sql undone", m.Name, err, exists(hasNote))
	}
	// 0002 has no down file: refused, nothing changes.
	_, err = migrate.Down(ctx, db.Admin, src(withDowns()))
	if !errors.Is(err, migrate.ErrNoDown) || !strings.Contains(err.Error(), "0002_seed.down.sql") {
		t.Fatalf("third down: %v, want ErrNoDown naming 0002_seed.down.sql", err)
	}
	sts, err := migrate.StatusOf(ctx, db.Admin, src(withDowns()))
	if err != nil {
		t.Fatal(err)
	}
	applied := map[string]bool{}
	for _, s := range sts {
		applied[s.Name] = s.AppliedAt != nil
	}
	want := map[string]bool{"0001_items.sql": true, "0002_seed.sql": true, "0003_column.sql": false, "0010_index.sql": false}
	if diff := cmp.Diff(want, applied); diff != "" {
		t.Errorf("applied after downs (-want +got):\n%s", diff)
	}
	// Up applies the undone files again, an edited one in its new form.
	edited := withDowns()
	edited["0003_column.sql"] = `ALTER TABLE items ADD COLUMN note text NOT NULL DEFAULT '';`
	redone, err := migrate.Up(ctx, db.Admin, nil, src(edited))
	if err != nil || cmp.Diff([]string{"0003_column.sql", "0010_index.sql"}, names(redone)) != "" {
		t.Fatalf("up after downs applied %v, %v", names(redone), err)
	}
	if !exists(`SELECT attnotnull FROM pg_attribute WHERE attrelid = 'items'::regclass AND attname = 'note'`) {
		t.Error("the edited migration was not the one applied again")
	}
}

// TestDownFailureKeepsRecord: a down file that fails changes nothing.
func TestDownFailureKeepsRecord(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	bad := map[string]string{
		"0001_a.sql":      `CREATE TABLE a (id int);`,
		"0001_a.down.sql": `DROP TABLE a; SELECT no_such_function();`,
	}
	if _, err := migrate.Up(ctx, db.Admin, nil, src(bad)); err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.Down(ctx, db.Admin, src(bad)); err == nil || !strings.Contains(err.Error(), "0001_a.down.sql") {
		t.Fatalf("down = %v, want an error naming the down file", err)
	}
	var table bool
	var n int
	if err := db.Admin.QueryRow(ctx, `SELECT to_regclass('a') IS NOT NULL, (SELECT count(*) FROM basalt.schema_migrations)`).Scan(&table, &n); err != nil || !table || n != 1 {
		t.Errorf("after a failed down: table %v, records %d (%v); want both kept", table, n, err)
	}
}

// TestStatusReportsMissingFiles: an applied migration whose file was
// deleted is listed as missing, in version order.
func TestStatusReportsMissingFiles(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	if _, err := migrate.Up(ctx, db.Admin, nil, src(files)); err != nil {
		t.Fatal(err)
	}
	fewer := map[string]string{}
	for k, v := range files {
		if k != "0003_column.sql" {
			fewer[k] = v
		}
	}
	sts, err := migrate.StatusOf(ctx, db.Admin, src(fewer))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sts {
		got = append(got, fmt.Sprintf("%s missing=%v", s.Name, s.Missing))
	}
	want := []string{"0001_items.sql missing=false", "0002_seed.sql missing=false", "0003_column.sql missing=true", "0010_index.sql missing=false"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
}
