package app_test

import (
	"testing"
)

// TestAdminHideTrack: a hidden track leaves every public read (visitors,
// fans) but not its artist's or admins'; it cannot be played, a stream of
// it made while it played does not count, and settlement pays nothing for
// a stream made before it was hidden. Unhiding brings it back.
func TestAdminHideTrack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	e.fund(w.sponsor, 1000)
	visible := func(c caller) int64 {
		n, err := e.try(c, `SELECT id FROM public.tracks WHERE id = $1`, w.track)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// A stream that counted before the track was hidden, not yet paid.
	early := e.freshFan()
	if valid, reason := e.listen(early, w.track, 31); !valid {
		t.Fatal(reason)
	}
	// A play started before the track was hidden.
	during := e.freshFan()
	var play string
	if err := e.query(during, `SELECT public.start_play($1)::text`, []any{w.track}, &play); err != nil {
		t.Fatal(err)
	}

	if _, err := e.callJSON(admin, `SELECT public.admin_hide_track($1, '')::text`, w.track); sqlMessage(err) != "A reason is required" {
		t.Errorf("hide without reason: %v", err)
	}
	res := e.mustJSON(admin, `SELECT public.admin_hide_track($1, 'Reported as stolen')::text`, w.track)
	if res["status"] != "hidden" {
		t.Fatalf("hide = %v", res)
	}
	for name, c := range map[string]caller{"visitor": anon, "fan": user(w.fan), "sponsor": user(w.sponsor)} {
		if n := visible(c); n != 0 {
			t.Errorf("%s sees the hidden track", name)
		}
	}
	if n := visible(user(w.artist)); n != 1 {
		t.Errorf("artist does not see own hidden track")
	}
	if n := visible(admin); n != 1 {
		t.Errorf("admin does not see the hidden track")
	}
	if err := e.query(user(w.fan), `SELECT public.start_play($1)::text`, []any{w.track}, new(string)); sqlMessage(err) != "Track not found" {
		t.Errorf("play of a hidden track: %v", err)
	}
	e.exec(`UPDATE public.play_sessions SET started_at = now() - interval '31 seconds' WHERE id = $1`, play)
	if valid, reason := e.insertStream(during, w.track); valid || reason != "Track is not available" {
		t.Errorf("stream of a play started before hiding: %v %q", valid, reason)
	}
	paid := e.settle(early, w.artist, w.sponsor, "hidden-1", 50)
	if paid["success"] != false || paid["error"] != "Track is not available" {
		t.Errorf("settlement for a hidden track: %v", paid)
	}
	if e.balance(w.sponsor) != "1000.00" {
		t.Errorf("sponsor paid for a hidden track: %s", e.balance(w.sponsor))
	}
	// Artists cannot undo it themselves.
	if _, err := e.execAs(user(w.artist), `UPDATE public.tracks SET status = 'active' WHERE id = $1`, w.track); sqlState(err) != denied {
		t.Errorf("artist unhides: %v", err)
	}
	if _, err := e.execAs(user(w.artist), `INSERT INTO public.tracks (title, artist_id, status) VALUES ('Sneaky', $1, 'hidden') RETURNING status`, w.artist); err != nil {
		t.Fatal(err)
	}
	if s := scalar[string](e, `SELECT status FROM public.tracks WHERE title = 'Sneaky'`); s != "active" {
		t.Errorf("artist insert kept status %s", s)
	}
	notes := scalar[string](e, `SELECT message FROM public.notifications WHERE user_id = $1 AND title = 'Track hidden'`, w.artist)
	if notes != `Your track "Sponsored Song" has been hidden from listeners: Reported as stolen` {
		t.Errorf("artist notification %q", notes)
	}

	e.mustJSON(admin, `SELECT public.admin_unhide_track($1)::text`, w.track)
	if n := visible(anon); n != 1 {
		t.Errorf("visitor does not see the track after unhide")
	}
	if _, err := e.callJSON(admin, `SELECT public.admin_unhide_track($1)::text`, w.track); sqlMessage(err) != "Track is already active" {
		t.Errorf("unhide twice: %v", err)
	}
	audit := e.auditRows("track.hide")
	if len(audit) != 1 || audit[0]["reason"] != "Reported as stolen" || audit[0]["before"].(map[string]any)["status"] != "active" ||
		audit[0]["after"].(map[string]any)["status"] != "hidden" {
		t.Errorf("hide audit %v", audit)
	}
	if len(e.auditRows("track.unhide")) != 1 {
		t.Error("unhide not audited")
	}
	e.conserved()
}

// TestAdminRemoveAndListTracks: removal tells the artist why; the track list
// searches titles, filters by status and shows rejected streams; the detail
// shows a track's streams and fraud signals.
func TestAdminRemoveAndListTracks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	fan := e.freshFan()
	if valid, reason := e.listen(fan, w.plainTrack, 31); !valid {
		t.Fatal(reason)
	}
	if valid, _ := e.listen(fan, w.plainTrack, 2); valid {
		t.Fatal("short stream counted")
	}
	if _, err := e.execAs(fan, `SELECT public.update_device_fingerprint($1, 'fp-x', 'HeadlessChrome', '1x1', NULL, NULL, NULL, NULL, '{}')`, fan.uid); err != nil {
		t.Fatal(err)
	}
	if _, err := e.execAs(fan, `SELECT public.detect_stream_fraud($1, $2, 'fp-x')`, fan.uid, w.plainTrack); err != nil {
		t.Fatal(err)
	}

	list := e.mustRows(admin, `SELECT * FROM public.admin_search_tracks('plain')`)
	if len(list) != 1 || list[0]["id"] != w.plainTrack || list[0]["streams"] != 1.0 || list[0]["rejected_streams"] != 1.0 ||
		list[0]["artist_name"] != scalar[string](e, `SELECT name FROM public.artist_profiles WHERE id = $1`, w.artist) {
		t.Errorf("search = %v", list)
	}
	d := e.mustJSON(admin, `SELECT public.admin_track_detail($1)::text`, w.plainTrack)
	streams := d["streams"].(map[string]any)
	if streams["valid"] != 1.0 || streams["rejected"] != 1.0 || streams["listeners"] != 1.0 {
		t.Errorf("detail streams %v", streams)
	}
	if r := d["rejections"].([]any); len(r) != 1 || r[0].(map[string]any)["reason"] != "Stream not valid (listened 2 s, minimum 30 s)" {
		t.Errorf("rejections %v", r)
	}
	if f := d["fraud_flags"].([]any); len(f) != 1 {
		t.Errorf("fraud flags %v", f)
	}
	if l := d["top_listeners"].([]any); len(l) != 1 || l[0].(map[string]any)["user_id"] != fan.uid {
		t.Errorf("top listeners %v", l)
	}

	e.mustJSON(admin, `SELECT public.admin_remove_track($1, 'Copyright claim by the label')::text`, w.plainTrack)
	msg := scalar[string](e, `SELECT message FROM public.notifications WHERE user_id = $1 AND title = 'Track removed'`, w.artist)
	if msg != `Your track "Plain Song" has been removed: Copyright claim by the label` {
		t.Errorf("removal notice %q", msg)
	}
	if n, _ := e.try(user(w.fan), `SELECT id FROM public.tracks WHERE id = $1`, w.plainTrack); n != 0 {
		t.Error("removed track still public")
	}
	removed := e.mustRows(admin, `SELECT * FROM public.admin_search_tracks(p_status => 'removed')`)
	if len(removed) != 1 || removed[0]["moderation_reason"] != "Copyright claim by the label" {
		t.Errorf("removed list %v", removed)
	}
	if active := e.mustRows(admin, `SELECT * FROM public.admin_search_tracks(p_status => 'active')`); len(active) != 1 || active[0]["id"] != w.track {
		t.Errorf("active list %v", active)
	}

	// Keyset pages over more tracks than a page.
	for i := 0; i < 5; i++ {
		e.exec(`INSERT INTO public.tracks (title, artist_id, created_at) VALUES ('Bulk ' || $2::int, $1, now() - make_interval(secs => $2::int))`, w.artist2, i)
	}
	paged := walk(t, e, admin, `SELECT * FROM public.admin_search_tracks(p_before_created => $1, p_before_id => $2, p_limit => 2)`, "id",
		func(last map[string]any) []any {
			if last == nil {
				return []any{nil, nil}
			}
			return []any{last["created_at"], last["id"]}
		})
	if len(paged) != 7 {
		t.Errorf("paged %d tracks, want 7", len(paged))
	}
}
