package platform_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/sql/platform"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// privileges creates a table (with a serial column), a view and a function
// in public as the migrating role and says what each API role may do with
// them.
func privileges(t *testing.T, db *pgxpool.Pool, suffix string) map[string][4]bool {
	t.Helper()
	ctx := context.Background()
	if _, err := db.Exec(ctx, `CREATE TABLE public.t`+suffix+` (id serial PRIMARY KEY);
		CREATE VIEW public.v`+suffix+` AS SELECT id FROM public.t`+suffix+`;
		CREATE FUNCTION public.f`+suffix+`() RETURNS int LANGUAGE sql AS 'SELECT 1'`); err != nil {
		t.Fatal(err)
	}
	out := map[string][4]bool{}
	for _, role := range []string{"anon", "authenticated", "service_role"} {
		var p [4]bool
		// The function's ACL is read for the role itself: PostgreSQL lets
		// PUBLIC execute any new function, as in Supabase's database.
		err := db.QueryRow(ctx, `SELECT has_table_privilege($1, 'public.t'||$2, 'SELECT,INSERT,UPDATE,DELETE'),
			has_table_privilege($1, 'public.v'||$2, 'SELECT'),
			EXISTS (SELECT 1 FROM pg_proc p, aclexplode(p.proacl) a
			        WHERE p.oid = ('public.f'||$2||'()')::regprocedure AND a.grantee = $1::regrole),
			has_sequence_privilege($1, 'public.t'||$2||'_id_seq', 'USAGE')`, role, suffix).Scan(&p[0], &p[1], &p[2], &p[3])
		if err != nil {
			t.Fatal(err)
		}
		out[role] = p
	}
	return out
}

// TestPublicDefaultPrivileges: since 2026-10-30 a new table, view or
// function in public gives the API roles nothing until a GRANT names them
// (their sequences stay usable, as before); BASALT_PUBLIC_DEFAULT_GRANTS
// (platform.Source(true)) brings back the earlier defaults, and turning it
// off again takes them back.
func TestPublicDefaultPrivileges(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	for role, p := range privileges(t, db.Admin, "_new") {
		if p != [4]bool{false, false, false, true} {
			t.Errorf("%s on a new table, view, function, sequence = %v, want only the sequence", role, p)
		}
	}
	if _, err := migrate.Up(ctx, db.Admin, nil, platform.Source(true)); err != nil {
		t.Fatal(err)
	}
	for role, p := range privileges(t, db.Admin, "_legacy") {
		if p != [4]bool{true, true, true, true} {
			t.Errorf("%s with the earlier defaults = %v, want everything", role, p)
		}
	}
	if _, err := migrate.Up(ctx, db.Admin, nil, platform.Source(false)); err != nil {
		t.Fatal(err)
	}
	for role, p := range privileges(t, db.Admin, "_off") {
		if p != [4]bool{false, false, false, true} {
			t.Errorf("%s after turning the setting off = %v, want only the sequence", role, p)
		}
	}
}
