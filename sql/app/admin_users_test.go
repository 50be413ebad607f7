package app_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// TestAdminUserSearch: search by e-mail, username and name; filters by role,
// verification and suspension; keyset pages that add up to the whole list.
func TestAdminUserSearch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	zed := e.signUpMeta("zed.okafor@label.example", map[string]any{"role": "artist", "display_name": "Zed Okafor", "username": "zedbeats"})
	e.exec(`UPDATE public.public_profiles SET is_verified = true WHERE id = $1`, zed)
	e.exec(`UPDATE public.public_profiles SET is_suspended = true, suspended_reason = 'spam' WHERE id = $1`, w.fan2)

	ids := func(rows []map[string]any) string {
		var s []string
		for _, r := range rows {
			s = append(s, r["id"].(string))
		}
		sort.Strings(s)
		return strings.Join(s, ",")
	}
	search := `SELECT * FROM public.admin_search_users($1, $2::public.app_role, $3, $4)`
	for _, tc := range []struct {
		name      string
		args      []any
		want      []string
		wantCount int
	}{
		{"by e-mail", []any{"LABEL.example", nil, nil, nil}, []string{zed}, 0},
		{"by username", []any{"zedbea", nil, nil, nil}, []string{zed}, 0},
		{"by display name", []any{"zed oka", nil, nil, nil}, []string{zed}, 0},
		{"wildcards are literal", []any{"%", nil, nil, nil}, nil, 0},
		{"by role", []any{nil, "sponsor", nil, nil}, []string{w.sponsor, w.sponsor2}, 0},
		{"verified", []any{nil, nil, true, nil}, []string{zed}, 0},
		{"suspended", []any{nil, nil, nil, true}, []string{w.fan2}, 0},
		{"artist and verified", []any{"zed", "artist", true, false}, []string{zed}, 0},
		{"everyone", []any{nil, nil, nil, nil}, nil, 8},
	} {
		got := e.mustRows(admin, search, tc.args...)
		if tc.wantCount > 0 {
			if len(got) != tc.wantCount {
				t.Errorf("%s: %d rows, want %d", tc.name, len(got), tc.wantCount)
			}
			continue
		}
		sort.Strings(tc.want)
		if ids(got) != strings.Join(tc.want, ",") {
			t.Errorf("%s: %s, want %s", tc.name, ids(got), strings.Join(tc.want, ","))
		}
	}
	// A changed e-mail address is found at once.
	e.exec(`UPDATE auth.users SET email = 'zed@newlabel.example' WHERE id = $1`, zed)
	if got := e.mustRows(admin, search, "newlabel", nil, nil, nil); ids(got) != zed {
		t.Errorf("search by the new e-mail: %s", ids(got))
	}
	e.exec(`UPDATE auth.users SET email = 'zed.okafor@label.example' WHERE id = $1`, zed)
	first := e.mustRows(admin, `SELECT * FROM public.admin_search_users('zedbeats')`)[0]
	if first["email"] != "zed.okafor@label.example" || first["role"] != "artist" || first["balance"] != 0.0 {
		t.Errorf("row %v", first)
	}

	// Pages of 3 by keyset: every user once, newest first.
	all := e.mustRows(admin, `SELECT * FROM public.admin_search_users()`)
	paged := walk(t, e, admin, `SELECT * FROM public.admin_search_users(NULL, NULL, NULL, NULL, $1, $2, 3)`, "id",
		func(last map[string]any) []any {
			if last == nil {
				return []any{nil, nil}
			}
			return []any{last["created_at"], last["id"]}
		})
	if ids(paged) != ids(all) || len(paged) != len(all) {
		t.Errorf("paged %d users, listed %d", len(paged), len(all))
	}
	for i := 1; i < len(paged); i++ {
		if ts(t, paged[i]["created_at"]).After(ts(t, paged[i-1]["created_at"])) {
			t.Errorf("page order broken at %d", i)
		}
	}
}

// TestAdminUserDetail: one call shows a user's profile, role, wallet,
// sessions and devices, streams and fraud flags.
func TestAdminUserDetail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	fan := e.freshFan()
	e.fund(fan.uid, 300)
	if _, err := e.execAs(fan, `SELECT public.upsert_user_session($1, 'device-1', 'Mozilla/5.0 Test', NULL)`, fan.uid); err != nil {
		t.Fatal(err)
	}
	if _, err := e.execAs(fan, `SELECT public.update_device_fingerprint($1, 'fp-1', 'HeadlessChrome', '1920x1080', 'Africa/Lagos', 'en', 'Linux', NULL, '{"hardwareConcurrency": 4}')`, fan.uid); err != nil {
		t.Fatal(err)
	}
	if valid, reason := e.listen(fan, w.track, 31); !valid {
		t.Fatal(reason)
	}
	if valid, _ := e.listen(fan, w.track, 5); valid {
		t.Fatal("a 5 s stream counted")
	}
	if _, err := e.execAs(fan, `SELECT public.detect_stream_fraud($1, $2, 'fp-1', NULL, 'HeadlessChrome')`, fan.uid, w.track); err != nil {
		t.Fatal(err)
	}
	d := e.mustJSON(user(w.admin), `SELECT public.admin_user_detail($1)::text`, fan.uid)
	get := func(path ...string) any {
		var v any = d
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		return v
	}
	checks := map[string][2]any{
		"role":            {get("role"), "fan"},
		"email":           {get("account", "email"), scalar[string](e, `SELECT email FROM auth.users WHERE id = $1`, fan.uid)},
		"balance":         {get("wallet", "balance"), 300.0},
		"valid streams":   {get("streams", "valid"), 1.0},
		"rejected":        {get("streams", "rejected"), 1.0},
		"sessions":        {len(get("sessions").([]any)), 1},
		"session ip":      {get("sessions").([]any)[0].(map[string]any)["ip_address"], fan.ip},
		"devices":         {len(get("devices").([]any)), 1},
		"device flagged":  {get("devices").([]any)[0].(map[string]any)["suspicious"], true},
		"fraud flags":     {len(get("fraud_flags").([]any)), 1},
		"recent streams":  {len(get("recent_streams").([]any)), 2},
		"rejected reason": {get("recent_streams").([]any)[0].(map[string]any)["invalid_reason"], "Stream not valid (listened 5 s, minimum 30 s)"},
	}
	for name, c := range checks {
		if fmt.Sprint(c[0]) != fmt.Sprint(c[1]) {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	if _, err := e.callJSON(user(w.admin), `SELECT public.admin_user_detail(gen_random_uuid())::text`); sqlMessage(err) != "User not found" {
		t.Errorf("unknown user: %v", err)
	}
}

// TestAdminSuspendAndRole: suspension with a reason (audited, the user told,
// streams stop counting), unsuspension, and role changes that bring the
// role profile along.
func TestAdminSuspendAndRole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	if _, err := e.callJSON(admin, `SELECT public.admin_suspend_user($1, '  ')::text`, w.fan); sqlMessage(err) != "A reason is required" {
		t.Errorf("no reason: %v", err)
	}
	res := e.mustJSON(admin, `SELECT public.admin_suspend_user($1, 'Repeated stream manipulation')::text`, w.fan)
	if res["is_suspended"] != true || res["suspended_reason"] != "Repeated stream manipulation" {
		t.Errorf("suspend = %v", res)
	}
	var suspended bool
	if err := e.query(user(w.fan), `SELECT public.is_user_suspended($1)`, []any{w.fan}, &suspended); err != nil || !suspended {
		t.Errorf("is_user_suspended = %v %v", suspended, err)
	}
	if _, err := e.callJSON(admin, `SELECT public.admin_suspend_user($1, 'again')::text`, w.fan); sqlMessage(err) != "User is already suspended" {
		t.Errorf("twice: %v", err)
	}
	audit := e.auditRows("user.suspend")
	if len(audit) != 1 || audit[0]["actor_id"] != w.admin || audit[0]["target_id"] != w.fan ||
		audit[0]["reason"] != "Repeated stream manipulation" ||
		audit[0]["before"].(map[string]any)["is_suspended"] != false || audit[0]["after"].(map[string]any)["is_suspended"] != true {
		t.Errorf("audit %v", audit)
	}
	if msg := scalar[string](e, `SELECT message FROM public.notifications WHERE user_id = $1 AND title = 'Account suspended'`, w.fan); msg != "Your account has been suspended: Repeated stream manipulation" {
		t.Errorf("notification %q", msg)
	}
	if _, err := e.execAs(user(w.fan), `SELECT public.start_play($1)`, w.track); sqlMessage(err) != "User is suspended and cannot generate valid streams" {
		t.Errorf("suspended fan's play: %v", err)
	}

	e.mustJSON(admin, `SELECT public.admin_unsuspend_user($1, 'appeal accepted')::text`, w.fan)
	if got := scalar[string](e, `SELECT is_suspended || '/' || coalesce(suspended_reason, '-') FROM public.public_profiles WHERE id = $1`, w.fan); got != "false/-" {
		t.Errorf("after unsuspend %s", got)
	}
	if _, err := e.callJSON(admin, `SELECT public.admin_unsuspend_user($1)::text`, w.fan); sqlMessage(err) != "User is not suspended" {
		t.Errorf("unsuspend twice: %v", err)
	}

	// Role: a fan becomes an artist and can then upload.
	if _, err := e.callJSON(admin, `SELECT public.admin_set_user_role($1, 'fan', 'x')::text`, w.fan2); sqlMessage(err) != "User already has this role" {
		t.Errorf("same role: %v", err)
	}
	e.mustJSON(admin, `SELECT public.admin_set_user_role($1, 'artist', 'label signed them')::text`, w.fan2)
	if got := scalar[string](e, `SELECT r.role || '/' || p.role || '/' || (SELECT count(*) FROM public.artist_profiles WHERE id = $1)
		FROM public.user_roles r JOIN public.public_profiles p ON p.id = r.user_id WHERE r.user_id = $1`, w.fan2); got != "artist/artist/1" {
		t.Errorf("role after change %s", got)
	}
	if _, err := e.execAs(user(w.fan2), `INSERT INTO public.tracks (title, artist_id) VALUES ('First', $1)`, w.fan2); err != nil {
		t.Errorf("new artist uploads: %v", err)
	}
	role := e.auditRows("user.role")
	if len(role) != 1 || role[0]["before"].(map[string]any)["role"] != "fan" || role[0]["after"].(map[string]any)["role"] != "artist" {
		t.Errorf("role audit %v", role)
	}
	// A second admin may be made and then demoted by the first.
	e.mustJSON(admin, `SELECT public.admin_set_user_role($1, 'admin', 'new moderator')::text`, w.sponsor2)
	e.mustJSON(admin, `SELECT public.admin_set_user_role($1, 'sponsor', 'left the team')::text`, w.sponsor2)
}

// TestAdminActivity: the feed shows sign-ups, uploads, streams (valid and
// rejected with the reason), payments, cash-outs, invites and admin actions,
// each kind filterable, by user, and in keyset pages.
func TestAdminActivity(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	fan := e.freshFan()
	if valid, reason := e.listen(fan, w.track, 31); !valid {
		t.Fatal(reason)
	}
	if valid, _ := e.listen(fan, w.plainTrack, 3); valid {
		t.Fatal("short stream counted")
	}
	e.fund(w.artist, 2000)
	e.requestCashout(w.artist, 1000)
	e.mustJSON(user(w.sponsor), `SELECT public.create_payment('sandbox', 'topup', 5000)::text`)
	if _, err := e.execAs(user(w.sponsor2), `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id) VALUES ($1, $2)`, w.artist2, w.sponsor2); err != nil {
		t.Fatal(err)
	}
	e.mustJSON(admin, `SELECT public.admin_suspend_user($1, 'spam')::text`, w.fan2)

	feed := `SELECT * FROM public.admin_activity($1, $2::uuid)`
	kinds := func(rows []map[string]any) map[string]int {
		m := map[string]int{}
		for _, r := range rows {
			m[r["kind"].(string)]++
		}
		return m
	}
	all := e.mustRows(admin, `SELECT * FROM public.admin_activity(p_limit => 200)`)
	got := kinds(all)
	for _, k := range []string{"signup", "upload", "stream", "payment", "cashout", "invite", "admin"} {
		if got[k] == 0 {
			t.Errorf("feed has no %s: %v", k, got)
		}
	}
	for _, k := range []string{"signup", "upload", "payment", "cashout", "invite", "admin", "stream"} {
		rows := e.mustRows(admin, feed, k, nil)
		if len(rows) == 0 || len(kinds(rows)) != 1 || kinds(rows)[k] != len(rows) {
			t.Errorf("filter %s gave %v", k, kinds(rows))
		}
	}
	rejected := e.mustRows(admin, feed, "stream_rejected", nil)
	if len(rejected) != 1 || rejected[0]["details"].(map[string]any)["invalid_reason"] != "Stream not valid (listened 3 s, minimum 30 s)" ||
		rejected[0]["details"].(map[string]any)["title"] != "Plain Song" || rejected[0]["actor_id"] != fan.uid {
		t.Errorf("rejected streams %v", rejected)
	}
	if valid := e.mustRows(admin, feed, "stream_valid", nil); len(valid) != 1 || valid[0]["action"] != "stream.valid" {
		t.Errorf("valid streams %v", valid)
	}
	byFan := e.mustRows(admin, feed, nil, fan.uid)
	if k := kinds(byFan); k["stream"] != 2 || k["signup"] != 1 || len(byFan) != 3 {
		t.Errorf("fan's activity %v", k)
	}
	if _, err := e.rows(admin, feed, "nonsense", nil); sqlMessage(err) != "Unknown activity kind nonsense" {
		t.Errorf("bad kind: %v", err)
	}

	// Pages of 4: the same rows in the same order as one big page.
	paged := walk(t, e, admin, `SELECT * FROM public.admin_activity(p_before_at => $1, p_before_key => $2, p_limit => 4)`, "key",
		func(last map[string]any) []any {
			if last == nil {
				return []any{nil, nil}
			}
			return []any{last["at"], last["key"]}
		})
	if len(paged) != len(all) {
		t.Fatalf("paged %d rows, one page %d", len(paged), len(all))
	}
	for i := range all {
		if paged[i]["key"] != all[i]["key"] {
			t.Fatalf("row %d: paged %v, listed %v", i, paged[i]["key"], all[i]["key"])
		}
	}
	// A date window.
	if rows := e.mustRows(admin, `SELECT * FROM public.admin_activity(p_from => now() + interval '1 hour')`); len(rows) != 0 {
		t.Errorf("future window %d rows", len(rows))
	}
}
