package app_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/basaltdev/basalt/internal/pgtest"
)

// TestSeed applies the dev seed twice, as `basalt dev` does on every start:
// the second run changes nothing, and the demo's money is conserved.
func TestSeed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	root, err := pgtest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "sql", "seed", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("seed files: %v %v", files, err)
	}
	sort.Strings(files)
	apply := func() {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.db.Admin.Exec(e.ctx, string(b)); err != nil {
				t.Fatalf("%s: %v", filepath.Base(f), err)
			}
		}
	}
	snapshot := func() string {
		return scalar[string](e, `SELECT concat_ws(' ',
			(SELECT count(*) FROM auth.users), (SELECT count(*) FROM public.tracks), (SELECT count(*) FROM public.streams),
			(SELECT count(*) FROM public.transactions), (SELECT count(*) FROM public.notifications),
			(SELECT sum(streams) FROM public.tracks), (SELECT string_agg(balance::text, ',' ORDER BY id) FROM public.wallets))`)
	}
	apply()
	first := snapshot()
	apply()
	if again := snapshot(); again != first {
		t.Errorf("second seed run changed data:\n%s\n%s", first, again)
	}
	e.conserved()

	got := scalar[string](e, `SELECT concat_ws(' ',
		(SELECT string_agg(role::text || '=' || n, ',' ORDER BY role) FROM (SELECT role, count(*) n FROM public.user_roles GROUP BY role) r),
		(SELECT count(*) FROM public.tracks WHERE is_sponsored),
		(SELECT count(*) FROM public.sponsor_artist_invites WHERE status = 'accepted'),
		(SELECT count(*) FROM auth.users WHERE encrypted_password LIKE '$2a$10$%' AND email_confirmed_at IS NOT NULL),
		(SELECT count(*) FROM auth.identities),
		(SELECT bool_and(balance > 0) FROM public.wallets w JOIN public.user_roles r ON r.user_id = w.id AND r.role = 'sponsor'))`)
	if want := "fan=3,artist=4,sponsor=2,admin=1 3 3 10 10 t"; got != want {
		t.Errorf("seed = %q, want %q", got, want)
	}
	// Sponsored streams were paid once each, and counters match the rows.
	paid := scalar[string](e, `SELECT (SELECT count(*) FROM public.transactions WHERE kind = 'sponsored_stream') || '/' ||
		(SELECT count(*) FROM public.streams s JOIN public.tracks t ON t.id = s.track_id WHERE t.is_sponsored AND s.paid_reference IS NOT NULL)`)
	if paid == "0/0" || paid[:len(paid)/2] != paid[len(paid)/2+1:] {
		t.Errorf("paid streams = %s", paid)
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.tracks t WHERE streams <> (SELECT count(*) FROM public.streams s WHERE s.track_id = t.id AND s.is_valid)`); n != 0 {
		t.Errorf("%d tracks with wrong counters", n)
	}
}
