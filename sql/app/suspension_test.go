package app_test

import (
	"fmt"
	"testing"
)

// ability is one thing a signed-in user can do, tried as the user: ok says
// whether it worked, detail what happened.
type ability struct {
	name string
	who  func(w *suspensionWorld) caller
	try  func(e *env, w *suspensionWorld, c caller) (ok bool, detail string)
}

type suspensionWorld struct {
	*world
	playlist, pendingInvite string
}

// count is an ability that reads rows: it works when the user sees at
// least want of them.
func count(sql string, want int64) func(e *env, w *suspensionWorld, c caller) (bool, string) {
	return func(e *env, w *suspensionWorld, c caller) (bool, string) {
		var n int64
		if err := e.query(c, sql, []any{c.uid}, &n); err != nil {
			return false, err.Error()
		}
		return n >= want, fmt.Sprintf("%d rows, at least %d when active", n, want)
	}
}

// attempt is an ability that writes or calls: it works when the statement
// succeeds (inside a transaction that is rolled back) and touches a row.
// A refusal must carry refusal as its message, when given.
func attempt(sql, refusal string, args func(w *suspensionWorld, c caller) []any) func(e *env, w *suspensionWorld, c caller) (bool, string) {
	return func(e *env, w *suspensionWorld, c caller) (bool, string) {
		n, err := e.try(c, sql, args(w, c)...)
		if err != nil {
			if refusal != "" && sqlMessage(err) != refusal {
				return false, fmt.Sprintf("refused with %q, want %q", sqlMessage(err), refusal)
			}
			return false, "refused: " + sqlMessage(err)
		}
		return n > 0, fmt.Sprintf("%d rows", n)
	}
}

func self(w *suspensionWorld, c caller) []any { return []any{c.uid} }
func none(*suspensionWorld, caller) []any     { return nil }

var (
	fanOf     = func(w *suspensionWorld) caller { return user(w.fan) }
	artistOf  = func(w *suspensionWorld) caller { return user(w.artist) }
	sponsorOf = func(w *suspensionWorld) caller { return user(w.sponsor) }
)

// userAbilities: everything a signed-in user does that a suspended one may
// not, each tried as the user it belongs to.
var userAbilities = []ability{
	{"read own wallet", sponsorOf, count(`SELECT count(*) FROM public.wallets WHERE id = $1`, 1)},
	{"read own ledger", sponsorOf, count(`SELECT count(*) FROM public.transactions WHERE to_wallet = $1`, 1)},
	{"read own notifications", fanOf, count(`SELECT count(*) FROM public.notifications WHERE user_id = $1`, 1)},
	{"read own cash-outs", artistOf, count(`SELECT count(*) FROM public.cashout_requests WHERE user_id = $1`, 1)},
	{"read own KYC submissions", artistOf, count(`SELECT count(*) FROM public.kyc_submissions WHERE artist_id = $1`, 1)},
	{"read own invites", artistOf, count(`SELECT count(*) FROM public.sponsor_artist_invites WHERE artist_id = $1`, 2)},
	{"read own playlists", fanOf, count(`SELECT count(*) FROM public.playlists WHERE user_id = $1`, 1)},
	{"read own playlist tracks", fanOf, count(`SELECT count(*) FROM public.playlist_tracks pt JOIN public.playlists p ON p.id = pt.playlist_id WHERE p.user_id = $1`, 1)},
	{"read own favorites", fanOf, count(`SELECT count(*) FROM public.favorites WHERE user_id = $1`, 1)},
	{"read own sessions", fanOf, count(`SELECT count(*) FROM public.user_sessions WHERE user_id = $1`, 1)},
	{"read own fan profile", fanOf, count(`SELECT count(*) FROM public.fan_profiles WHERE id = $1`, 1)},
	{"read own payments", sponsorOf, count(`SELECT count(*) FROM public.payments WHERE user_id = $1`, 1)},
	{"read own uploads' KYC document", artistOf, count(`SELECT count(*) FROM storage.objects WHERE bucket_id = 'kyc' AND name LIKE $1 || '/%'`, 1)},
	{"edit own profile", fanOf, attempt(`UPDATE public.public_profiles SET bio = 'hi' WHERE id = $1`, "", self)},
	{"mark notifications read", fanOf, attempt(`UPDATE public.notifications SET is_read = true WHERE user_id = $1`, "", self)},
	{"add a favorite", fanOf, attempt(`INSERT INTO public.favorites (track_id, user_id) VALUES ($1, $2)`, "",
		func(w *suspensionWorld, c caller) []any { return []any{w.plainTrack, c.uid} })},
	{"create a playlist", fanOf, attempt(`INSERT INTO public.playlists (user_id, name) VALUES ($1, 'More')`, "", self)},
	{"reorder a playlist", fanOf, attempt(`SELECT public.reorder_playlist($1, ARRAY[$2]::uuid[])`, "Your account is suspended",
		func(w *suspensionWorld, c caller) []any { return []any{w.playlist, w.track} })},
	{"upload an avatar", fanOf, attempt(`INSERT INTO storage.objects (bucket_id, name) VALUES ('avatars', $1 || '/me.png')`, "", self)},
	{"upload a track", artistOf, attempt(`INSERT INTO public.tracks (title, artist_id) VALUES ('New', $1)`, "", self)},
	{"invite an artist", sponsorOf, attempt(`INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id) VALUES ($1, $2)`, "",
		func(w *suspensionWorld, c caller) []any { return []any{w.artist2, c.uid} })},
	{"answer an invite", artistOf, attempt(`SELECT public.respond_to_invite($1, true)`, "Your account is suspended",
		func(w *suspensionWorld, c caller) []any { return []any{w.pendingInvite} })},
	{"request a cash-out", artistOf, attempt(`SELECT public.request_cashout(1000, 'Zenith Bank', '0123456789', 'Ada Artist')`,
		"Suspended accounts cannot request a cash-out", none)},
	{"top up", sponsorOf, attempt(`SELECT public.create_payment('sandbox', 'topup', 5000)`, "Your account is suspended", none)},
	{"submit KYC", func(w *suspensionWorld) caller { return user(w.artist2) }, attempt(`SELECT public.submit_kyc('Ada Artist', 'passport', 'A1234567')`,
		"Suspended accounts cannot submit KYC", none)},
	{"open the dashboard", artistOf, attempt(`SELECT public.get_artist_dashboard()`, "Your account is suspended", none)},
	{"read the wallet history", sponsorOf, attempt(`SELECT public.get_wallet_history()`, "Your account is suspended", none)},
	{"start a play", fanOf, attempt(`SELECT public.start_play($1)`, "User is suspended and cannot generate valid streams",
		func(w *suspensionWorld, c caller) []any { return []any{w.plainTrack} })},
	{"check the daily allowance", fanOf, attempt(`SELECT public.has_remaining_streams($1)`, "Your account is suspended", self)},
	{"record a session", fanOf, attempt(`SELECT public.upsert_user_session($1, 'phone')`, "Your account is suspended", self)},
	{"see who is online", fanOf, attempt(`SELECT * FROM public.get_online_users()`, "", none)},
}

// TestSuspensionMeansSuspended: after admin_suspend_user, the user can read
// their own suspension and sign out, and every other thing a signed-in user
// does is refused in the database; unsuspending restores each of them.
func TestSuspensionMeansSuspended(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := &suspensionWorld{world: e.newWorld()}
	e.fund(w.sponsor, 1000)
	e.fund(w.artist, 5000)
	e.requestCashout(w.artist, 1000)
	e.exec(`INSERT INTO storage.objects (bucket_id, name) VALUES ('kyc', $1)`, w.artist+"/id.png")
	e.submitKYC(w.artist)
	e.mustJSON(user(w.sponsor), `SELECT public.create_payment('sandbox', 'topup', 5000)::text`)
	w.pendingInvite = scalar[string](e, `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id) VALUES ($1, $2) RETURNING id::text`,
		w.artist, w.sponsor2)
	w.playlist = scalar[string](e, `INSERT INTO public.playlists (user_id, name) VALUES ($1, 'Mine') RETURNING id::text`, w.fan)
	e.exec(`INSERT INTO public.playlist_tracks (playlist_id, track_id) VALUES ($1, $2)`, w.playlist, w.track)
	e.exec(`INSERT INTO public.favorites (track_id, user_id) VALUES ($1, $2)`, w.track, w.fan)
	if _, err := e.execAs(user(w.fan), `SELECT public.upsert_user_session($1, 'laptop')`, w.fan); err != nil {
		t.Fatal(err)
	}

	check := func(state string, wantOK bool) {
		t.Helper()
		for _, a := range userAbilities {
			if ok, detail := a.try(e, w, a.who(w)); ok != wantOK {
				t.Errorf("%s: %s works=%v (want %v): %s", state, a.name, ok, wantOK, detail)
			}
		}
	}
	check("before the suspension", true)

	admin := user(w.admin)
	everyone := []string{w.fan, w.artist, w.artist2, w.sponsor}
	for _, uid := range everyone {
		e.mustJSON(admin, `SELECT public.admin_suspend_user($1, 'Stream manipulation')::text`, uid)
	}
	check("suspended", false)

	// What a suspended account keeps: its suspension, and signing out.
	fan := user(w.fan)
	var reason string
	var suspended bool
	if err := e.query(fan, `SELECT suspended_reason, public.is_user_suspended($1) FROM public.public_profiles WHERE id = $1`,
		[]any{w.fan}, &reason, &suspended); err != nil || reason != "Stream manipulation" || !suspended {
		t.Errorf("suspended fan reads own suspension: %q %v %v", reason, suspended, err)
	}
	boot := e.mustJSON(fan, `SELECT public.get_app_bootstrap('laptop-2', 'Firefox')::text`)["user"].(map[string]any)
	if boot["suspended"] != true || boot["suspended_reason"] != "Stream manipulation" || boot["session_recorded"] != false {
		t.Errorf("bootstrap of a suspended fan: %v", boot)
	}
	if _, err := e.execAs(fan, `SELECT public.remove_user_session('laptop')`); err != nil {
		t.Errorf("a suspended fan signs out: %v", err)
	}
	if _, err := e.execAs(fan, `SELECT public.upsert_user_session($1, 'laptop')`, w.fan); err == nil {
		t.Error("a suspended fan recorded a session")
	}

	for _, uid := range everyone {
		e.mustJSON(admin, `SELECT public.admin_unsuspend_user($1, 'Appeal accepted')::text`, uid)
	}
	if _, err := e.execAs(fan, `SELECT public.upsert_user_session($1, 'laptop')`, w.fan); err != nil {
		t.Fatal(err)
	}
	check("unsuspended", true)
}

// TestSuspendedStreamsAndPayments: a suspended fan's stream is neither
// recorded nor counted; a suspended artist's sponsored track stays playable
// and counted but earns nothing, and the sponsor pays nothing; both end with
// the suspension.
func TestSuspendedStreamsAndPayments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.sponsor, 1000)
	admin := user(w.admin)
	counted := func() string {
		return scalar[string](e, `SELECT (SELECT count(*) FROM public.streams WHERE track_id = $1) || '/' ||
			(SELECT streams FROM public.tracks WHERE id = $1)`, w.track)
	}

	fan := e.freshFan()
	var play string
	if err := e.query(fan, `SELECT public.start_play($1)::text`, []any{w.track}, &play); err != nil {
		t.Fatal(err)
	}
	e.exec(`UPDATE public.play_sessions SET started_at = now() - interval '31 seconds' WHERE id = $1`, play)
	e.mustJSON(admin, `SELECT public.admin_suspend_user($1, 'Bots')::text`, fan.uid)
	_, err := e.execAs(fan, `INSERT INTO public.streams (track_id, user_id, duration, is_valid) VALUES ($1, $2, 31, true)`, w.track, fan.uid)
	if sqlMessage(err) != "User is suspended and cannot generate valid streams" {
		t.Errorf("suspended fan's stream: %v", err)
	}
	if got := counted(); got != "0/0" {
		t.Errorf("streams recorded/counted after a suspended fan's stream = %s, want 0/0", got)
	}
	if res := e.settle(fan, w.artist, w.sponsor, "ref-suspended-fan", 50); res["success"] != false ||
		res["error"] != "User is suspended and cannot generate valid streams" {
		t.Errorf("suspended fan's settlement: %v", res)
	}
	e.mustJSON(admin, `SELECT public.admin_unsuspend_user($1, 'ok')::text`, fan.uid)
	if valid, reason := e.listen(fan, w.track, 31); !valid {
		t.Errorf("unsuspended fan's stream: %q", reason)
	}

	// The artist is suspended: another fan's stream of the sponsored track
	// is valid and counted, but pays nothing.
	e.mustJSON(admin, `SELECT public.admin_suspend_user($1, 'Fraud')::text`, w.artist)
	fan2 := e.freshFan()
	if valid, reason := e.listen(fan2, w.track, 31); !valid {
		t.Fatalf("stream of a suspended artist's track: %q", reason)
	}
	if got := counted(); got != "2/2" {
		t.Errorf("streams recorded/counted = %s, want 2/2", got)
	}
	artistBefore, sponsorBefore := e.balance(w.artist), e.balance(w.sponsor)
	if res := e.settle(fan2, w.artist, w.sponsor, "ref-suspended-artist", 50); res["success"] != false || res["error"] != "Artist is suspended" {
		t.Errorf("settlement for a suspended artist: %v", res)
	}
	if a, s := e.balance(w.artist), e.balance(w.sponsor); a != artistBefore || s != sponsorBefore {
		t.Errorf("balances moved while the artist was suspended: artist %s→%s, sponsor %s→%s", artistBefore, a, sponsorBefore, s)
	}

	e.mustJSON(admin, `SELECT public.admin_unsuspend_user($1, 'ok')::text`, w.artist)
	fan3 := e.freshFan()
	if valid, reason := e.listen(fan3, w.track, 31); !valid {
		t.Fatalf("stream after the unsuspension: %q", reason)
	}
	if res := e.settle(fan3, w.artist, w.sponsor, "ref-unsuspended-artist", 50); res["success"] != true {
		t.Errorf("settlement after the unsuspension: %v", res)
	}
	if got := e.balance(w.artist); got != "50.00" {
		t.Errorf("artist balance after the unsuspension = %s, want 50.00", got)
	}
	e.conserved()
}

// TestSuspensionReauthorizesRealtime: admin_suspend_user has realtime
// re-check the user's private channels when the platform offers
// realtime.reauthorize_user (here a stand-in that records its calls), and
// suspends as before when it does not.
func TestSuspensionReauthorizesRealtime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	e.mustJSON(admin, `SELECT public.admin_suspend_user($1, 'Spam')::text`, w.fan)

	e.exec(`DO $$ BEGIN
		IF to_regprocedure('realtime.reauthorize_user(uuid)') IS NOT NULL THEN
			ALTER FUNCTION realtime.reauthorize_user(uuid) RENAME TO reauthorize_user_platform;
		END IF;
	END $$`)
	e.exec(`CREATE TABLE public.reauthorized (user_id uuid)`)
	e.exec(`CREATE FUNCTION realtime.reauthorize_user(p_user_id uuid) RETURNS void
		LANGUAGE sql AS 'INSERT INTO public.reauthorized VALUES (p_user_id)'`)
	e.mustJSON(admin, `SELECT public.admin_suspend_user($1, 'Spam')::text`, w.fan2)
	if got := scalar[string](e, `SELECT coalesce(string_agg(user_id::text, ','), '') FROM public.reauthorized`); got != w.fan2 {
		t.Errorf("reauthorized %q, want the suspended user %s", got, w.fan2)
	}
	e.mustJSON(admin, `SELECT public.admin_unsuspend_user($1, 'ok')::text`, w.fan2)
	if n := scalar[int64](e, `SELECT count(*) FROM public.reauthorized`); n != 1 {
		t.Errorf("unsuspending reauthorized again (%d calls): nothing is closed by lifting a suspension", n)
	}
}
