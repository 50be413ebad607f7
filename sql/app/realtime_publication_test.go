package app_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

// ownerRules says whose rows each published table holds. Realtime sends a
// change to every subscriber allowed to SELECT the row, so a table may be
// published only when its rows are private to their owner (and admins).
var ownerRules = map[string]string{
	"notifications":          "user_id = $1",
	"wallets":                "user_id = $1",
	"cashout_requests":       "user_id = $1",
	"kyc_submissions":        "artist_id = $1",
	"sponsor_artist_invites": "artist_id = $1 OR sponsor_id = $1",
}

// TestRealtimePublication: the publication holds the tables the live pages
// follow, and each keeps its rows to their owner: a visitor reads none, a
// signed-in stranger only their own, while the owner does read theirs.
func TestRealtimePublication(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var published []string
	rows, err := e.db.Admin.Query(e.ctx, `SELECT tablename::text FROM pg_publication_tables
		WHERE pubname = 'supabase_realtime' AND schemaname = 'public' ORDER BY tablename`)
	if err != nil {
		t.Fatal(err)
	}
	published, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cashout_requests", "kyc_submissions", "notifications", "sponsor_artist_invites", "wallets"}
	if d := cmp.Diff(want, published); d != "" {
		t.Errorf("published tables (-want +got):\n%s", d)
	}

	// Every published table gets a row of the first artist's.
	w := e.newWorld()
	e.fund(w.artist, 2000)
	e.requestCashout(w.artist, 1000)
	e.submitKYC(w.artist)
	stranger := e.signUp("fan")
	for _, table := range published {
		rule, ok := ownerRules[table]
		if !ok {
			t.Errorf("%s is published but has no owner rule here", table)
			continue
		}
		if !scalar[bool](e, `SELECT relrowsecurity FROM pg_class WHERE oid = $1::regclass`, "public."+table) {
			t.Errorf("%s is published without row-level security", table)
		}
		name := pgx.Identifier{"public", table}.Sanitize()
		if n, err := e.try(anon, `SELECT 1 FROM `+name); err == nil && n != 0 {
			t.Errorf("a visitor reads %d rows of %s", n, table)
		} else if err != nil && sqlState(err) != denied {
			t.Errorf("visitor reading %s: %v", table, err)
		}
		if n, err := e.try(user(stranger), fmt.Sprintf(`SELECT 1 FROM %s WHERE NOT (%s)`, name, rule), stranger); err != nil || n != 0 {
			t.Errorf("a stranger reads %d rows of %s that are not theirs (%v)", n, table, err)
		}
		if n, err := e.try(user(w.artist), fmt.Sprintf(`SELECT 1 FROM %s WHERE %s`, name, rule), w.artist); err != nil || n == 0 {
			t.Errorf("the owner reads %d of their rows of %s (%v)", n, table, err)
		}
	}
}
