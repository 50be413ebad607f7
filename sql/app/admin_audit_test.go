package app_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// adminWorld is a world with something for every admin action to act on:
// a pending cash-out, a pending KYC submission and a hidden track.
type adminWorld struct {
	*world
	cashout, kyc, hiddenTrack, suspended string
}

func (e *env) newAdminWorld() *adminWorld {
	e.t.Helper()
	w := &adminWorld{world: e.newWorld()}
	e.fund(w.artist, 5000)
	e.fund(w.sponsor, 1000)
	w.cashout = e.requestCashout(w.artist, 1000)
	w.kyc = e.submitKYC(w.artist)
	w.suspended = e.signUp("fan")
	e.exec(`UPDATE public.public_profiles SET is_suspended = true, suspended_reason = 'spam' WHERE id = $1`, w.suspended)
	w.hiddenTrack = scalar[string](e, `INSERT INTO public.tracks (title, artist_id, status) VALUES ('Hidden', $1, 'hidden') RETURNING id::text`, w.artist)
	return w
}

// adminCalls is every admin function with arguments that succeed for an
// admin; the test below checks the list against the database's functions.
func adminCalls(w *adminWorld) map[string][]any {
	inYear := time.Now().AddDate(1, 0, 0)
	return map[string][]any{
		"admin_search_users":          {`SELECT public.admin_search_users('user')`},
		"admin_user_detail":           {`SELECT public.admin_user_detail($1)`, w.fan},
		"admin_suspend_user":          {`SELECT public.admin_suspend_user($1, 'spam')`, w.fan2},
		"admin_unsuspend_user":        {`SELECT public.admin_unsuspend_user($1)`, w.suspended},
		"admin_set_user_role":         {`SELECT public.admin_set_user_role($1, 'artist', 'asked for it')`, w.fan2},
		"admin_activity":              {`SELECT public.admin_activity()`},
		"admin_search_tracks":         {`SELECT public.admin_search_tracks()`},
		"admin_track_detail":          {`SELECT public.admin_track_detail($1)`, w.track},
		"admin_hide_track":            {`SELECT public.admin_hide_track($1, 'copyright claim')`, w.plainTrack},
		"admin_remove_track":          {`SELECT public.admin_remove_track($1, 'copyright claim')`, w.plainTrack},
		"admin_unhide_track":          {`SELECT public.admin_unhide_track($1)`, w.hiddenTrack},
		"complete_cashout":            {`SELECT public.complete_cashout($1)`, w.cashout},
		"reject_cashout":              {`SELECT public.reject_cashout($1, 'bad account')`, w.cashout},
		"admin_list_cashouts":         {`SELECT public.admin_list_cashouts()`},
		"admin_cashout_totals":        {`SELECT public.admin_cashout_totals()`},
		"admin_list_transactions":     {`SELECT public.admin_list_transactions()`},
		"admin_ledger_summary":        {`SELECT public.admin_ledger_summary()`},
		"admin_ledger_recheck":        {`SELECT public.admin_ledger_recheck()`},
		"admin_adjust_wallet":         {`SELECT public.admin_adjust_wallet($1, 100, 'goodwill')`, w.fan},
		"admin_list_invites":          {`SELECT public.admin_list_invites()`},
		"admin_list_sponsored_tracks": {`SELECT public.admin_list_sponsored_tracks()`},
		"admin_end_sponsorship":       {`SELECT public.admin_end_sponsorship($1, 'contract over')`, w.track},
		"admin_list_kyc":              {`SELECT public.admin_list_kyc()`},
		"admin_review_kyc":            {`SELECT public.admin_review_kyc($1, true, $2)`, w.kyc, inYear},
		"admin_list_verifications":    {`SELECT public.admin_list_verifications()`},
		"admin_system_status":         {`SELECT public.admin_system_status()`},
	}
}

// TestAdminRefusals calls every admin function as a fan, an artist, a
// sponsor, a visitor, the service role and a suspended admin: each is
// refused with 42501 (401/403 at the REST layer) and nothing changes, while
// the same calls succeed for an admin.
func TestAdminRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newAdminWorld()
	calls := adminCalls(w)

	// Every admin entry point is in the list.
	var names []string
	for n := range calls {
		names = append(names, n)
	}
	sort.Strings(names)
	have := scalar[string](e, `SELECT string_agg(proname, ',' ORDER BY proname) FROM pg_proc
		WHERE pronamespace = 'public'::regnamespace AND (proname LIKE 'admin\_%' OR proname IN ('complete_cashout', 'reject_cashout'))`)
	if have != strings.Join(names, ",") {
		t.Fatalf("admin functions in the database:\n%s\ntested:\n%s", have, strings.Join(names, ","))
	}

	suspendedAdmin := e.admin()
	e.exec(`UPDATE public.public_profiles SET is_suspended = true, suspended_reason = 'test' WHERE id = $1`, suspendedAdmin)
	callers := map[string]func(sql string, args ...any) error{
		"fan":     func(sql string, args ...any) error { _, err := e.execAs(user(w.fan), sql, args...); return err },
		"artist":  func(sql string, args ...any) error { _, err := e.execAs(user(w.artist), sql, args...); return err },
		"sponsor": func(sql string, args ...any) error { _, err := e.execAs(user(w.sponsor), sql, args...); return err },
		"visitor": func(sql string, args ...any) error { _, err := e.execAs(anon, sql, args...); return err },
		"suspended admin": func(sql string, args ...any) error {
			_, err := e.execAs(user(suspendedAdmin), sql, args...)
			return err
		},
		"service role": func(sql string, args ...any) error {
			return pg.AsCaller(e.ctx, e.db.User, service(), func(tx pgx.Tx) error { _, err := tx.Exec(e.ctx, sql, args...); return err })
		},
	}
	before := e.state()
	for who, run := range callers {
		for _, name := range names {
			call := calls[name]
			// Each attempt commits if it is not refused, so a leak would show.
			if err := run(call[0].(string), call[1:]...); sqlState(err) != denied {
				t.Errorf("%s as %s: %v, want %s", name, who, err, denied)
			}
		}
	}
	if after := e.state(); after != before {
		t.Errorf("refused calls changed the database:\nbefore %s\nafter  %s", before, after)
	}

	// The same calls go through for an admin (each in a rolled-back
	// transaction, so they do not see each other).
	for _, name := range names {
		call := calls[name]
		if _, err := e.try(user(w.admin), call[0].(string), call[1:]...); err != nil {
			t.Errorf("%s as admin: %v", name, err)
		}
	}
}

// TestAuditAppendOnly: nobody changes or removes an audit row, not an
// admin, not the service role, not the database owner.
func TestAuditAppendOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	e.mustJSON(admin, `SELECT public.admin_suspend_user($1, 'spam')::text`, w.fan)
	rows := e.auditRows("user.suspend")
	if len(rows) != 1 {
		t.Fatalf("audit rows %v", rows)
	}
	id := rows[0]["id"]
	for _, c := range []struct {
		name string
		as   caller
		sql  string
	}{
		{"admin updates", admin, `UPDATE public.admin_audit_log SET reason = 'nothing' WHERE id = $1`},
		{"admin deletes", admin, `DELETE FROM public.admin_audit_log WHERE id = $1`},
		{"admin inserts", admin, `INSERT INTO public.admin_audit_log (actor_id, action, target_type, target_id) SELECT actor_id, 'x', 'x', 'x' FROM public.admin_audit_log WHERE id = $1`},
		{"fan reads", user(w.fan), `UPDATE public.admin_audit_log SET reason = 'x' WHERE id = $1`},
	} {
		if _, err := e.execAs(c.as, c.sql, id); sqlState(err) != denied {
			t.Errorf("%s: %v, want %s", c.name, err, denied)
		}
	}
	err := pg.AsCaller(e.ctx, e.db.User, service(), func(tx pgx.Tx) error {
		_, err := tx.Exec(e.ctx, `DELETE FROM public.admin_audit_log WHERE id = $1`, id)
		return err
	})
	if sqlState(err) != denied {
		t.Errorf("service role deletes: %v", err)
	}
	for _, sql := range []string{
		`UPDATE public.admin_audit_log SET reason = 'owner' WHERE id = $1`,
		`DELETE FROM public.admin_audit_log WHERE id = $1`,
	} {
		if _, err := e.db.Admin.Exec(e.ctx, sql, id); sqlState(err) != denied || !strings.Contains(sqlMessage(err), "cannot be changed") {
			t.Errorf("owner %q: %v", sql, err)
		}
	}
	if _, err := e.db.Admin.Exec(e.ctx, `TRUNCATE public.admin_audit_log`); sqlState(err) != denied {
		t.Errorf("owner truncates: %v", err)
	}
	// Admins read it; others do not.
	if n := len(e.mustRows(admin, `SELECT * FROM public.admin_audit_log`)); n != 1 {
		t.Errorf("admin reads %d rows", n)
	}
	if n := len(e.mustRows(user(w.fan), `SELECT * FROM public.admin_audit_log`)); n != 0 {
		t.Errorf("fan reads %d rows", n)
	}
	if after := e.auditRows("user.suspend"); len(after) != 1 || after[0]["reason"] != "spam" {
		t.Errorf("audit rows after the attempts: %v", after)
	}
}

// TestAuditDirectWrites: an admin's change to someone else's row through the
// admin policies is audited with the row before and after; an admin editing
// their own profile is not an admin action.
func TestAuditDirectWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	for _, sql := range []string{
		`UPDATE public.public_profiles SET is_verified = true WHERE id = '` + w.artist + `'`,
		`UPDATE public.tracks SET is_explicit = true WHERE id = '` + w.plainTrack + `'`,
		`UPDATE public.app_settings SET value = 'true' WHERE key = 'coming_soon_enabled'`,
		`UPDATE public.public_profiles SET bio = 'I run this place' WHERE id = '` + w.admin + `'`,
	} {
		if _, err := e.execAs(admin, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	got := e.mustRows(admin, `SELECT action, target_id, actor_id, before ->> 'is_verified' AS b, after ->> 'is_verified' AS a
		FROM public.admin_audit_log ORDER BY id`)
	want := []map[string]any{
		{"action": "public_profiles.update", "target_id": w.artist, "actor_id": w.admin, "b": "false", "a": "true"},
		{"action": "tracks.update", "target_id": w.plainTrack, "actor_id": w.admin, "b": nil, "a": nil},
		{"action": "app_settings.update", "target_id": "coming_soon_enabled", "actor_id": w.admin, "b": nil, "a": nil},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("audit rows\n%v\nwant\n%v", got, want)
	}
}

// TestAdminSelfAndLastAdmin: an admin cannot demote or suspend themselves by
// any path, and two admins demoting each other at once leave one admin.
func TestAdminSelfAndLastAdmin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.admin()
	const self = "Admins cannot demote or suspend themselves"
	for _, c := range []string{
		`SELECT public.admin_suspend_user('` + a + `', 'x')`,
		`SELECT public.admin_set_user_role('` + a + `', 'fan', 'x')`,
		`UPDATE public.user_roles SET role = 'fan' WHERE user_id = '` + a + `'`,
		`UPDATE public.public_profiles SET is_suspended = true WHERE id = '` + a + `'`,
		`UPDATE public.public_profiles SET role = 'fan' WHERE id = '` + a + `'`,
		`DELETE FROM public.user_roles WHERE user_id = '` + a + `'`,
	} {
		if _, err := e.execAs(user(a), c); sqlMessage(err) != self {
			t.Errorf("%s: %v, want %q", c, err, self)
		}
	}

	// A demotes B while B demotes A: B's call passes the admin check, then
	// waits for A's; once A's commits, B is no longer an admin and A would
	// be the last, so B's is refused.
	b := e.admin()
	tx, err := e.db.User.Begin(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(e.ctx) //nolint:errcheck
	if err := pg.SetupTx(e.ctx, tx, user(a).request()); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(e.ctx, `SELECT public.admin_set_user_role($1, 'fan', 'rotation')`, b); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.execAs(user(b), `SELECT public.admin_set_user_role($1, 'fan', 'rotation')`, a)
		done <- err
	}()
	if !waitForLockWait(e, 3*time.Second) {
		t.Error("the second demotion did not wait for the first")
	}
	if err := tx.Commit(e.ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; sqlMessage(err) != "The last admin cannot be demoted or suspended" {
		t.Errorf("second demotion: %v", err)
	}
	active := scalar[string](e, `SELECT coalesce(string_agg(r.user_id::text, ','), '') FROM public.user_roles r
		JOIN public.public_profiles p ON p.id = r.user_id WHERE r.role = 'admin' AND NOT p.is_suspended`)
	if active != a {
		t.Errorf("active admins %s, want only %s", active, a)
	}
}

// waitForLockWait reports whether some session of the test database waits
// on a lock within d (the second admin's call above).
func waitForLockWait(e *env, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(e.ctx, d)
	defer cancel()
	for ctx.Err() == nil {
		if scalar[int64](e, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`) > 0 {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}
