package migrate_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pgtest"
)

var diffFiles = map[string]string{
	"0001_base.sql": `
CREATE TYPE mood AS ENUM ('happy', 'sad');
CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL DEFAULT '', feeling mood, owner uuid);
CREATE INDEX notes_owner ON notes (owner);
ALTER TABLE notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY own ON notes FOR SELECT USING (owner IS NOT NULL);
CREATE FUNCTION shout(t text) RETURNS text LANGUAGE sql AS 'SELECT upper(t)';
CREATE VIEW loud AS SELECT id, shout(body) AS body FROM notes;
GRANT SELECT ON notes TO diff_reader;`,
}

func snapshot(t *testing.T, db *pgtest.DB) migrate.Snapshot {
	t.Helper()
	s, err := migrate.TakeSnapshot(context.Background(), db.Admin)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCompareSchemas: two databases built from the same files have the
// same snapshot; changes made by hand show up object by object, on the
// side they were made.
func TestCompareSchemas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	live, files := pgtest.NewEmptyDB(t), pgtest.NewEmptyDB(t)
	// Roles are shared by the cluster: create the one the files grant to first.
	if _, err := live.Admin.Exec(ctx, `DO $$ BEGIN CREATE ROLE diff_reader NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`); err != nil {
		t.Fatal(err)
	}
	for _, db := range []*pgtest.DB{live, files} {
		if _, err := migrate.Up(ctx, db.Admin, nil, src(diffFiles)); err != nil {
			t.Fatal(err)
		}
	}
	if d := migrate.Compare(snapshot(t, live), snapshot(t, files)); len(d) != 0 {
		t.Fatalf("same files, differences: %+v", d)
	}
	if _, err := live.Admin.Exec(ctx, `
		CREATE TABLE scratch (x int);
		ALTER TABLE notes ALTER COLUMN body DROP DEFAULT;
		CREATE OR REPLACE FUNCTION shout(t text) RETURNS text LANGUAGE sql AS 'SELECT upper(t) || ''!''';
		DROP POLICY own ON notes;
		REVOKE SELECT ON notes FROM diff_reader;
		ALTER TYPE mood ADD VALUE 'calm';`); err != nil {
		t.Fatal(err)
	}
	if _, err := files.Admin.Exec(ctx, `CREATE INDEX notes_feeling ON notes (feeling)`); err != nil {
		t.Fatal(err)
	}
	type side struct{ Live, Files bool }
	got := map[string]side{}
	for _, c := range migrate.Compare(snapshot(t, live), snapshot(t, files)) {
		got[c.Object] = side{c.Live != nil, c.Files != nil}
	}
	want := map[string]side{
		"table public.scratch":                       {Live: true},
		"column public.scratch.x":                    {Live: true},
		"column public.notes.body":                   {Live: true, Files: true},
		"function public.shout(text)":                {Live: true, Files: true},
		"policy own on public.notes":                 {Files: true},
		"grant on table public.notes to diff_reader": {Files: true},
		"enum public.mood":                           {Live: true, Files: true},
		"index public.notes_feeling":                 {Files: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}
