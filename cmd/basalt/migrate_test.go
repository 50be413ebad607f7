package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basaltdev/basalt/internal/pgtest"
)

// TestMigrateDownAndDiff drives `basalt migrate up|diff|down|status` on a
// database and an app migrations folder: diff is quiet while the database
// is what the files build, names hand-made changes and unapplied files
// otherwise (and then fails); down undoes the last applied file.
func TestMigrateDownAndDiff(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	sqlDir := t.TempDir()
	app := filepath.Join(sqlDir, "app")
	write := func(name, sql string) {
		t.Helper()
		if err := os.MkdirAll(app, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(app, name), []byte(sql), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("0001_items.sql", `CREATE TABLE public.items (id int PRIMARY KEY, name text NOT NULL);`)
	write("0002_tags.sql", `CREATE TABLE public.tags (id int PRIMARY KEY, item_id int REFERENCES public.items);`)
	write("0002_tags.down.sql", `DROP TABLE public.tags;`)
	env := func(k string) string {
		switch k {
		case "DATABASE_URL":
			return db.AdminURL
		case "BASALT_SQL_DIR":
			return sqlDir
		}
		return ""
	}
	migrate := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(ctx, append([]string{"migrate"}, args...), &out, &errOut, env)
		return out.String() + errOut.String(), err
	}
	if out, err := migrate("up"); err != nil || !strings.Contains(out, "applied app/0002_tags.sql") {
		t.Fatalf("up: %v\n%s", err, out)
	}
	if out, err := migrate("diff"); err != nil || !strings.Contains(out, "no differences") {
		t.Fatalf("diff right after up: %v\n%s", err, out)
	}

	if _, err := db.Admin.Exec(ctx, `CREATE TABLE public.by_hand (x int); ALTER TABLE public.items ALTER COLUMN name DROP NOT NULL`); err != nil {
		t.Fatal(err)
	}
	write("0003_notes.sql", `CREATE TABLE public.notes (id int);`)
	out, err := migrate("diff")
	if !errors.Is(err, errDiffers) {
		t.Fatalf("diff after changes: err = %v, want errDiffers\n%s", err, out)
	}
	for _, want := range []string{
		"app/0003_notes.sql: not applied",
		"+ table public.by_hand (only in the database)",
		"- table public.notes (only in the migrations)",
		"~ column public.items.name\n      database:   text\n      migrations: text NOT NULL",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff output lacks %q:\n%s", want, out)
		}
	}

	// down undoes the last applied file (0002; 0003 is not applied).
	if out, err := migrate("down"); err != nil || !strings.Contains(out, "undid app/0002_tags.sql with 0002_tags.down.sql") {
		t.Fatalf("down: %v\n%s", err, out)
	}
	var tags bool
	if err := db.Admin.QueryRow(ctx, `SELECT to_regclass('public.tags') IS NOT NULL`).Scan(&tags); err != nil || tags {
		t.Errorf("tags still exists after down (%v)", err)
	}
	if out, err := migrate("status"); err != nil || !strings.Contains(strings.Join(strings.Fields(out), " "), "0002_tags.sql pending") {
		t.Errorf("status after down: %v\n%s", err, out)
	}
	// 0001 has no down file: refused.
	if out, err := migrate("down"); err == nil || !strings.Contains(err.Error(), "0001_items.down.sql") {
		t.Errorf("down without a down file: %v\n%s", err, out)
	}
}

// TestMigrateReportsRepeatables: status and diff list repeatable files as
// pending until applied and again once their content changed; up applies
// the changed one; down says the repeatables are applied again.
func TestMigrateReportsRepeatables(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	sqlDir := t.TempDir()
	write := func(name, sql string) {
		t.Helper()
		p := filepath.Join(sqlDir, "app", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(sql), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("0001_items.sql", `CREATE TABLE public.items (id int PRIMARY KEY);`)
	write("0001_items.down.sql", `DROP TABLE public.items CASCADE;`)
	write("functions/public.item_count.sql", `CREATE OR REPLACE FUNCTION public.item_count() RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FROM public.items';`)
	env := func(k string) string {
		switch k {
		case "DATABASE_URL":
			return db.AdminURL
		case "BASALT_SQL_DIR":
			return sqlDir
		}
		return ""
	}
	migrate := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(ctx, append([]string{"migrate"}, args...), &out, &errOut, env)
		return strings.Join(strings.Fields(out.String()+errOut.String()), " "), err
	}
	if out, err := migrate("status"); err != nil || !strings.Contains(out, "app functions/public.item_count.sql pending") {
		t.Fatalf("status before up: %v\n%s", err, out)
	}
	if out, err := migrate("up"); err != nil || !strings.Contains(out, "applied app/0001_items.sql applied app/functions/public.item_count.sql") {
		t.Fatalf("up: %v\n%s", err, out)
	}
	if out, err := migrate("diff"); err != nil || !strings.Contains(out, "no differences") {
		t.Fatalf("diff right after up: %v\n%s", err, out)
	}

	write("functions/public.item_count.sql", `CREATE OR REPLACE FUNCTION public.item_count() RETURNS bigint LANGUAGE sql AS 'SELECT count(*) + 1 FROM public.items';`)
	if out, err := migrate("status"); err != nil || !strings.Contains(out, "app functions/public.item_count.sql changed since it was applied at") ||
		!strings.Contains(out, "1 pending") {
		t.Errorf("status after a change: %v\n%s", err, out)
	}
	out, err := migrate("diff")
	if !errors.Is(err, errDiffers) || !strings.Contains(out, "app/functions/public.item_count.sql: changed since it was applied (the next up applies it again)") ||
		!strings.Contains(out, "~ function public.item_count()") {
		t.Errorf("diff after a change: %v\n%s", err, out)
	}
	if out, err := migrate("up"); err != nil || out != "applied app/functions/public.item_count.sql" {
		t.Errorf("up after a change: %v\n%s", err, out)
	}
	if out, err := migrate("diff"); err != nil || !strings.Contains(out, "no differences") {
		t.Errorf("diff after up: %v\n%s", err, out)
	}
	if out, err := migrate("down"); err != nil || !strings.Contains(out, "the next up applies the repeatable files again") {
		t.Errorf("down: %v\n%s", err, out)
	}
	if out, err := migrate("status"); err != nil || !strings.Contains(out, "2 pending") {
		t.Errorf("status after down: %v\n%s", err, out)
	}
}
