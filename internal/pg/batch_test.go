package pg_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// TestQueryRowsAsCallers checks the batch form: one statement run as each
// caller sees that caller's role, claims and settings only (a setting one
// caller names does not leak to the next), and a caller whose statement
// fails costs only its own row.
func TestQueryRowsAsCallers(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	ctx := context.Background()
	const alice, bob = "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"
	_, err := db.Admin.Exec(ctx, `
		CREATE TABLE public.docs (id int PRIMARY KEY, owner uuid NOT NULL);
		GRANT SELECT ON public.docs TO anon, authenticated, service_role;
		ALTER TABLE public.docs ENABLE ROW LEVEL SECURITY;
		CREATE POLICY "authenticated can select own docs" ON public.docs FOR SELECT TO authenticated USING (auth.uid() = owner);
		INSERT INTO public.docs VALUES (1, '`+alice+`');
		CREATE FUNCTION public.boom() RETURNS boolean LANGUAGE plpgsql AS $$
		BEGIN
		  IF current_setting('app.explode', true) = 'yes' THEN RAISE EXCEPTION 'boom'; END IF;
		  RETURN true;
		END $$;`)
	if err != nil {
		t.Fatal(err)
	}
	callers := []pg.Caller{
		{Role: "authenticated", Claims: claims(t, map[string]any{"sub": alice, "role": "authenticated"}),
			After: []pg.Setting{{Name: "app.tag", Value: "first"}}},
		{Role: "authenticated", Claims: claims(t, map[string]any{"sub": bob, "role": "authenticated"})},
		{Role: "anon"},
		{Role: "service_role", After: []pg.Setting{{Name: "app.tag", Value: "last"}}},
	}
	type row struct {
		visible bool
		role    string
		tag     string
	}
	got := make([]row, len(callers))
	err = pg.QueryRowsAsCallers(ctx, db.User, callers, func(i int, r pgx.Row) error {
		return r.Scan(&got[i].visible, &got[i].role, &got[i].tag)
	}, `SELECT EXISTS (SELECT 1 FROM public.docs WHERE id = $1), current_user::text, coalesce(current_setting('app.tag', true), '')`, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []row{{true, "authenticated", "first"}, {false, "authenticated", ""}, {false, "anon", ""}, {true, "service_role", "last"}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("caller %d: got %+v, want %+v", i, got[i], want[i])
		}
	}

	// The second caller's statement raises: the others still get rows.
	callers = []pg.Caller{{Role: "anon"}, {Role: "anon", After: []pg.Setting{{Name: "app.explode", Value: "yes"}}}, {Role: "authenticated"}}
	ok := make([]bool, len(callers))
	err = pg.QueryRowsAsCallers(ctx, db.User, callers, func(i int, r pgx.Row) error { return r.Scan(&ok[i]) }, `SELECT public.boom()`)
	if err == nil || !pg.Is(err, "P0001") {
		t.Errorf("error %v, want the raised exception", err)
	}
	if !ok[0] || ok[1] || !ok[2] {
		t.Errorf("rows %v, want [true false true]", ok)
	}

	// A role outside the allow-list is refused before anything runs.
	err = pg.QueryRowsAsCallers(ctx, db.User, []pg.Caller{{Role: "postgres"}}, func(int, pgx.Row) error { return nil }, `SELECT 1`)
	if err == nil {
		t.Error("role postgres was accepted")
	}
}

// TestPlansKeptAcrossCallerRoles: callers of different roles taking turns
// on one connection each run a prepared statement of their own, so none is
// parsed and planned again because the role before it was another (one
// statement for both would be re-planned on every run under RLS).
func TestPlansKeptAcrossCallerRoles(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	ctx := context.Background()
	if _, err := db.Admin.Exec(ctx, `
		CREATE TABLE public.plan_notes (id int PRIMARY KEY);
		GRANT SELECT ON public.plan_notes TO anon, authenticated;
		ALTER TABLE public.plan_notes ENABLE ROW LEVEL SECURITY;
		CREATE POLICY "everyone reads" ON public.plan_notes FOR SELECT USING (true);
		INSERT INTO public.plan_notes VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	conn, err := db.User.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	anon, alice := pg.Caller{Role: "anon"}, pg.Caller{Role: "authenticated",
		Claims: claims(t, map[string]any{"sub": "11111111-1111-1111-1111-111111111111", "role": "authenticated"})}
	const q = `SELECT EXISTS (SELECT 1 FROM public.plan_notes WHERE id = $1)`
	for i := range 6 {
		c := anon
		if i%2 == 1 {
			c = alice
		}
		var seen bool
		if err := pg.QueryRowAsCaller(ctx, conn, c, func(r pgx.Row) error { return r.Scan(&seen) }, q, 1); err != nil || !seen {
			t.Fatalf("run %d as %s: seen %v, %v", i, c.Role, seen, err)
		}
	}
	// The batch form: both roles in one pipeline, twice.
	for range 2 {
		seen := make([]bool, 2)
		if err := pg.QueryRowsAsCallers(ctx, conn, []pg.Caller{anon, alice}, func(i int, r pgx.Row) error { return r.Scan(&seen[i]) }, q, 1); err != nil || !seen[0] || !seen[1] {
			t.Fatalf("batch: seen %v, %v", seen, err)
		}
	}
	statements, runs := pgtest.PreparedRuns(t, conn, "public.plan_notes WHERE id")
	if statements != 2 || runs != 10 {
		t.Errorf("10 runs taking turns as anon and authenticated ran %d times in %d prepared statements; want 10 in 2, one per role", runs, statements)
	}
}
