package app_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The first-screen calls of 0018_first_screen.sql: what each returns to its
// owner, and that another user or a visitor gets nothing private from it.

// TestAppBootstrap: the shell's one call gives visitors the public settings
// only, and a signed-in caller their own role, profile, completeness
// fields, suspension and unread count, recording their session on the way.
func TestAppBootstrap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.exec(`UPDATE public.app_settings SET value = 'true' WHERE key = 'coming_soon_enabled'`)
	e.exec(`UPDATE public.app_settings SET value = '"2027-01-01T00:00:00Z"' WHERE key = 'countdown_target_date'`)
	boot := `SELECT public.get_app_bootstrap($1, $2)::text`
	wantSettings := map[string]any{"coming_soon": true, "countdown_target": "2027-01-01T00:00:00Z"}

	visitor := e.mustJSON(anon, boot, "visitor-device", "Mozilla/5.0")
	if diff := cmp.Diff(map[string]any{"settings": wantSettings, "user": nil}, visitor); diff != "" {
		t.Errorf("visitor (-want +got):\n%s", diff)
	}

	// The fan: the sign-up's welcome notification is unread; one more, read,
	// and another fan's unread one do not count.
	e.exec(`UPDATE public.fan_profiles SET phone = '08012345678' WHERE id = $1`, w.fan)
	e.exec(`INSERT INTO public.notifications (user_id, type, title, message, is_read) VALUES
		($1, 'system_update', 'Read', 'seen', true), ($2, 'system_update', 'Other', 'not yours', false)`, w.fan, w.fan2)
	fan := e.mustJSON(user(w.fan), boot, "fan-device", "Mozilla/5.0 (X11)")
	if diff := cmp.Diff(wantSettings, fan["settings"]); diff != "" {
		t.Errorf("fan's settings (-want +got):\n%s", diff)
	}
	me := fan["user"].(map[string]any)
	profile := me["profile"].(map[string]any)
	if me["id"] != w.fan || me["role"] != "fan" || profile["id"] != w.fan || profile["role"] != "fan" || profile["display_name"] == nil ||
		me["suspended"] != false || me["suspended_reason"] != nil || me["unread_notifications"] != 1.0 || me["session_recorded"] != true {
		t.Errorf("fan's bootstrap %v", me)
	}
	if diff := cmp.Diff(map[string]any{"phone": "08012345678"}, me["role_profile"]); diff != "" {
		t.Errorf("fan's role profile (-want +got):\n%s", diff)
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.user_sessions WHERE user_id = $1 AND session_id = 'fan-device' AND device_info = 'Mozilla/5.0 (X11)'`, w.fan); n != 1 {
		t.Errorf("the fan's session was not recorded (%d rows)", n)
	}
	// The other fan sees their own unread notification and profile, never the first fan's.
	other := e.mustJSON(user(w.fan2), boot, nil, nil)["user"].(map[string]any)
	if other["id"] != w.fan2 || other["profile"].(map[string]any)["id"] != w.fan2 || other["unread_notifications"] != 2.0 ||
		other["role_profile"].(map[string]any)["phone"] != nil || other["session_recorded"] != false {
		t.Errorf("the other fan's bootstrap %v", other)
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.user_sessions WHERE user_id = $1`, w.fan2); n != 0 {
		t.Errorf("a call without a session id recorded %d sessions", n)
	}

	// An artist's completeness fields carry the track count; an admin has no role profile.
	artist := e.mustJSON(user(w.artist), boot, nil, nil)["user"].(map[string]any)
	wantTracks := float64(scalar[int32](e, `SELECT track_count FROM public.artist_profiles WHERE id = $1`, w.artist))
	if diff := cmp.Diff(map[string]any{"phone": nil, "track_count": wantTracks}, artist["role_profile"]); artist["role"] != "artist" || diff != "" {
		t.Errorf("artist's bootstrap %v (-want +got):\n%s", artist, diff)
	}
	if a := e.mustJSON(user(w.admin), boot, nil, nil)["user"].(map[string]any); a["role"] != "admin" || a["role_profile"] != nil {
		t.Errorf("admin's bootstrap %v", a)
	}

	// A suspended fan learns it, with the reason, from the same call.
	e.mustJSON(user(w.admin), `SELECT public.admin_suspend_user($1, 'Repeated stream manipulation')::text`, w.fan)
	me = e.mustJSON(user(w.fan), boot, nil, nil)["user"].(map[string]any)
	if me["suspended"] != true || me["suspended_reason"] != "Repeated stream manipulation" {
		t.Errorf("suspended fan's bootstrap %v", me)
	}

	// A provider sign-up that has not chosen a role yet has none.
	fresh := scalar[string](e, `INSERT INTO auth.users (id, aud, role, email, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
		VALUES (gen_random_uuid(), 'authenticated', 'authenticated', 'norole@example.com',
		'{"provider": "google", "providers": ["google"]}', '{"full_name": "No Role"}', now(), now()) RETURNING id::text`)
	if u := e.mustJSON(user(fresh), boot, nil, nil)["user"].(map[string]any); u["id"] != fresh || u["role"] != nil || u["role_profile"] != nil {
		t.Errorf("role-less bootstrap %v", u)
	}
}

// TestArtistFirstScreen: the artist's first screen is their dashboard, the
// statement asked for and their KYC card, each what the separate calls
// give; another artist and a fan get their own (empty) screens, a visitor
// nothing.
func TestArtistFirstScreen(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.sponsor, 500)
	e.exec(`SELECT public.transfer_funds($1, $2, 50, 'pay-first', 'sponsored_stream', NULL, $3)`, w.sponsor, w.artist, w.track)
	kyc := e.submitKYC(w.artist)
	// The statement's days are Lagos days: near midnight UTC, current_date
	// is the day before the transfer's.
	call := `SELECT public.get_artist_first_screen('day', (now() AT TIME ZONE 'Africa/Lagos')::date - 29, (now() AT TIME ZONE 'Africa/Lagos')::date)::text`

	got := e.mustJSON(user(w.artist), call)
	if diff := cmp.Diff(e.mustJSON(user(w.artist), `SELECT public.get_artist_dashboard()::text`), got["dashboard"]); diff != "" {
		t.Errorf("dashboard (-separate +first screen):\n%s", diff)
	}
	statement := e.mustRows(user(w.artist), `SELECT period_start::text, streams, amount FROM public.get_earnings_statement('day', (now() AT TIME ZONE 'Africa/Lagos')::date - 29, (now() AT TIME ZONE 'Africa/Lagos')::date)`)
	rows := got["statement"].([]any)
	if len(rows) != len(statement) || len(rows) != 30 {
		t.Fatalf("statement has %d periods, want %d", len(rows), len(statement))
	}
	earned := 0.0
	for i, r := range rows {
		m := r.(map[string]any)
		if m["period_start"] != statement[i]["period_start"] {
			t.Errorf("period %d starts %v, want %v", i, m["period_start"], statement[i]["period_start"])
		}
		earned += m["amount"].(float64)
	}
	if earned != 50 {
		t.Errorf("statement earned %v, want 50", earned)
	}
	card := got["kyc"].(map[string]any)
	if card["profile"].(map[string]any)["kyc_status"] != "pending" || card["latest"].(map[string]any)["id"] != kyc ||
		card["latest"].(map[string]any)["status"] != "pending" {
		t.Errorf("KYC card %v", card)
	}

	// Another artist: none of the first artist's money, tracks or KYC.
	other := e.mustJSON(user(w.artist2), call)
	d := other["dashboard"].(map[string]any)
	if d["wallet"].(map[string]any)["balance"] != 0.0 || len(d["tracks"].([]any)) != 0 || other["kyc"].(map[string]any)["latest"] != nil ||
		other["kyc"].(map[string]any)["profile"].(map[string]any)["kyc_status"] != "none" {
		t.Errorf("another artist's first screen %v", other)
	}
	for _, r := range other["statement"].([]any) {
		if r.(map[string]any)["amount"] != 0.0 {
			t.Errorf("another artist's statement %v", r)
		}
	}
	// A fan has no artist profile, so no KYC card data.
	if fan := e.mustJSON(user(w.fan), call); fan["kyc"].(map[string]any)["profile"] != nil || fan["kyc"].(map[string]any)["latest"] != nil {
		t.Errorf("a fan's KYC card %v", fan["kyc"])
	}
	if _, err := e.try(anon, call); sqlState(err) != denied {
		t.Errorf("visitor: %v, want %s", err, denied)
	}
	if _, err := e.try(user(w.artist), `SELECT public.get_artist_first_screen('year', current_date - 1, current_date)`); sqlMessage(err) != "period must be day, week or month" {
		t.Errorf("bad period: %v", err)
	}
}

// TestSponsorFirstScreen: the sponsor's dashboard and the charts of the
// period asked for; another sponsor sees none of it, a visitor nothing.
func TestSponsorFirstScreen(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.sponsor, 500)
	e.exec(`SELECT public.transfer_funds($1, $2, 50, 'pay-first', 'sponsored_stream', NULL, $3)`, w.sponsor, w.artist, w.track)

	got := e.mustJSON(user(w.sponsor), `SELECT public.get_sponsor_first_screen(7)::text`)
	if diff := cmp.Diff(e.mustJSON(user(w.sponsor), `SELECT public.get_sponsor_dashboard()::text`), got["dashboard"]); diff != "" {
		t.Errorf("dashboard (-separate +first screen):\n%s", diff)
	}
	if diff := cmp.Diff(e.mustJSON(user(w.sponsor), `SELECT public.get_sponsor_analytics(7)::text`), got["analytics"]); diff != "" {
		t.Errorf("analytics (-separate +first screen):\n%s", diff)
	}
	if a := got["analytics"].(map[string]any); a["days"] != 7.0 || len(a["per_track"].([]any)) != 1 {
		t.Errorf("analytics %v", a)
	}
	if d := e.mustJSON(user(w.sponsor), `SELECT public.get_sponsor_first_screen(30)::text`)["analytics"].(map[string]any); d["days"] != 30.0 {
		t.Errorf("30-day analytics %v", d)
	}

	other := e.mustJSON(user(w.sponsor2), `SELECT public.get_sponsor_first_screen()::text`)
	if d := other["dashboard"].(map[string]any); d["wallet"].(map[string]any)["balance"] != 0.0 || len(d["tracks"].([]any)) != 0 ||
		len(d["invites"].([]any)) != 0 || len(other["analytics"].(map[string]any)["per_track"].([]any)) != 0 {
		t.Errorf("another sponsor's first screen %v", other)
	}
	if _, err := e.try(anon, `SELECT public.get_sponsor_first_screen(7)`); sqlState(err) != denied {
		t.Errorf("visitor: %v, want %s", err, denied)
	}
}

// TestFanFirstScreen: the fan's dashboard, playlists in order and liked
// tracks, with the rows of the tracks the fan may see (a hidden track
// stays hidden) and their people; another fan sees none of it.
func TestFanFirstScreen(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	fan := user(w.fan)
	hidden := scalar[string](e, `INSERT INTO public.tracks (title, artist_id, duration) VALUES ('Hidden Song', $1, 120) RETURNING id::text`, w.artist2)
	var list string
	if err := e.query(fan, `INSERT INTO public.playlists (name, user_id) VALUES ('Road trip', $1) RETURNING id::text`, []any{w.fan}, &list); err != nil {
		t.Fatal(err)
	}
	for _, tr := range []string{w.plainTrack, w.track, hidden} {
		if _, err := e.execAs(fan, `INSERT INTO public.playlist_tracks (playlist_id, track_id) VALUES ($1, $2)`, list, tr); err != nil {
			t.Fatal(err)
		}
	}
	for _, tr := range []string{w.track, w.plainTrack} {
		if _, err := e.execAs(fan, `INSERT INTO public.favorites (track_id, user_id) VALUES ($1, $2)`, tr, w.fan); err != nil {
			t.Fatal(err)
		}
	}
	// The sponsored song was liked first.
	e.exec(`UPDATE public.favorites SET created_at = created_at - interval '1 minute' WHERE track_id = $1 AND user_id = $2`, w.track, w.fan)
	e.exec(`UPDATE public.tracks SET status = 'hidden' WHERE id = $1`, hidden)

	got := e.mustJSON(fan, `SELECT public.get_fan_first_screen()::text`)
	if diff := cmp.Diff(e.mustJSON(fan, `SELECT public.get_fan_dashboard()::text`), got["dashboard"]); diff != "" {
		t.Errorf("dashboard (-separate +first screen):\n%s", diff)
	}
	wantLists := []any{map[string]any{"id": list, "name": "Road trip", "track_ids": []any{w.plainTrack, w.track, hidden}}}
	if diff := cmp.Diff(wantLists, got["playlists"]); diff != "" {
		t.Errorf("playlists (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{w.plainTrack, w.track}, got["favorites"]); diff != "" {
		t.Errorf("favorites, newest like first (-want +got):\n%s", diff)
	}
	// The hidden track is named in the playlist but its row is not the fan's to read.
	titles := map[string]any{}
	for _, r := range got["tracks"].([]any) {
		m := r.(map[string]any)
		titles[m["id"].(string)] = m["title"]
	}
	if diff := cmp.Diff(map[string]any{w.track: "Sponsored Song", w.plainTrack: "Plain Song"}, titles); diff != "" {
		t.Errorf("track rows (-want +got):\n%s", diff)
	}
	people := map[string]bool{}
	for _, p := range got["people"].([]any) {
		people[p.(map[string]any)["id"].(string)] = true
	}
	if diff := cmp.Diff(map[string]bool{w.artist: true, w.sponsor: true}, people); diff != "" {
		t.Errorf("people (-want +got):\n%s", diff)
	}

	other := e.mustJSON(user(w.fan2), `SELECT public.get_fan_first_screen()::text`)
	if len(other["playlists"].([]any)) != 0 || len(other["favorites"].([]any)) != 0 || len(other["tracks"].([]any)) != 0 ||
		len(other["dashboard"].(map[string]any)["history"].([]any)) != 0 {
		t.Errorf("another fan's first screen %v", other)
	}
	if _, err := e.try(anon, `SELECT public.get_fan_first_screen()`); sqlState(err) != denied {
		t.Errorf("visitor: %v, want %s", err, denied)
	}
}
