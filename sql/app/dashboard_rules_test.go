package app_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// serviceExec runs one statement as the service role.
func (e *env) serviceExec(sql string, args ...any) (int64, error) {
	var n int64
	err := pg.AsCaller(e.ctx, e.db.User, service(), func(tx pgx.Tx) error {
		tag, err := tx.Exec(e.ctx, sql, args...)
		n = tag.RowsAffected()
		return err
	})
	return n, err
}

// The rules of 0007_dashboard_rules.sql, each tried by the wrong user or
// with forged values, the way a lying client would.

// TestCashoutBankDetails: a cash-out names a listed bank, a 10-digit NUBAN
// and an account name, whatever the form checked; two requests at once
// never hold more than the balance.
func TestCashoutBankDetails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	artist := user(w.artist)
	e.fund(w.artist, 1500)
	request := `SELECT public.request_cashout($1, $2, $3, $4)::text`
	refusals := []struct {
		name                 string
		amount               any
		bank, number, holder any
		msg                  string
	}{
		{"no bank", 1000, nil, "0123456789", "Ada Artist", "Choose your bank from the list"},
		{"a bank not on the list", 1000, "Bank of Nowhere", "0123456789", "Ada Artist", "Choose your bank from the list"},
		{"nine digits", 1000, "Zenith Bank", "012345678", "Ada Artist", "Account number must be 10 digits"},
		{"eleven digits", 1000, "Zenith Bank", "01234567890", "Ada Artist", "Account number must be 10 digits"},
		{"letters", 1000, "Zenith Bank", "01234x6789", "Ada Artist", "Account number must be 10 digits"},
		{"no account name", 1000, "Zenith Bank", "0123456789", "  ", "Enter the account name"},
		{"under the minimum still says so", 999.99, "Zenith Bank", "0123456789", "Ada Artist", "Minimum cash-out amount is ₦1,000"},
		{"over the balance still says so", 1500.01, "Zenith Bank", "0123456789", "Ada Artist", "Insufficient balance. Has ₦1,500, needs ₦1,500.01"},
	}
	for _, tc := range refusals {
		if _, err := e.callJSON(artist, request, tc.amount, tc.bank, tc.number, tc.holder); sqlMessage(err) != tc.msg {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.msg)
		}
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.cashout_requests`); n != 0 {
		t.Fatalf("refusals left %d requests", n)
	}

	// Two requests of ₦1,000 against ₦1,500 at the same moment: one is held,
	// the other refused with the balance left.
	var wg sync.WaitGroup
	results := make([]error, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, results[i] = e.callJSON(artist, request, 1000, "Zenith Bank", "0123456789", " Ada   Artist ")
		}()
	}
	wg.Wait()
	ok, refused := 0, ""
	for _, err := range results {
		if err == nil {
			ok++
		} else {
			refused = sqlMessage(err)
		}
	}
	if ok != 1 || refused != "Insufficient balance. Has ₦500, needs ₦1,000" {
		t.Fatalf("concurrent requests: %d succeeded, refusal %q", ok, refused)
	}
	got := scalar[string](e, `SELECT w.balance || '/' || c.amount || '/' || c.account_name || '/' || c.bank_name
		FROM public.wallets w JOIN public.cashout_requests c ON c.user_id = w.id WHERE w.id = $1`, w.artist)
	if got != "500.00/1000.00/Ada Artist/Zenith Bank" {
		t.Errorf("after the race: %s", got)
	}
	if held := scalar[string](e, `SELECT balance::text FROM public.wallets WHERE account = 'cashout:held'`); held != "1000.00" {
		t.Errorf("held %s, want 1000.00", held)
	}
	e.conserved()
}

// TestVerificationOnce: no second verification purchase while one is valid,
// except in its last 30 days; fans cannot buy one.
func TestVerificationOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	create := `SELECT public.create_payment('flutterwave', 'verification')::text`
	verifiedFor := func(uid, days string) {
		e.exec(`UPDATE public.public_profiles SET is_verified = true, verification_expires_at = now() + $2::interval WHERE id = $1`, uid, days)
	}
	verifiedFor(w.artist, "200 days")
	verifiedFor(w.artist2, "20 days")
	verifiedFor(w.sponsor2, "-3 days") // lapsed
	// An admin verified this sponsor for good: no expiry, nothing to renew.
	forGood := e.signUp("sponsor")
	e.exec(`UPDATE public.public_profiles SET is_verified = true WHERE id = $1`, forGood)

	cases := []struct {
		name string
		as   string
		msg  string // "" = allowed
	}{
		{"valid for 200 more days", w.artist, "Your verification is active until "},
		{"in the last 30 days", w.artist2, ""},
		{"never verified", w.sponsor, ""},
		{"lapsed", w.sponsor2, ""},
		{"a fan", w.fan, "Verification is for artists and sponsors"},
		{"verified by an admin, without an expiry", forGood, "Your profile is already verified."},
	}
	for _, tc := range cases {
		_, err := e.callJSON(user(tc.as), create)
		switch {
		case tc.msg == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.msg != "" && (sqlState(err) != "P0001" || !strings.HasPrefix(sqlMessage(err), tc.msg)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.msg)
		}
	}
	if msg := func() string { _, err := e.callJSON(user(w.artist), create); return sqlMessage(err) }(); !strings.HasSuffix(msg, "You can renew it in its last 30 days.") {
		t.Errorf("refusal %q does not say when renewal opens", msg)
	}
	// The top-up is not affected by an active verification.
	if _, err := e.callJSON(user(w.artist), `SELECT public.create_payment('flutterwave', 'topup', 500)::text`); err != nil {
		t.Errorf("top-up while verified: %v", err)
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.payments WHERE purpose = 'verification' AND user_id IN ($1, $2, $3)`, w.artist, w.fan, forGood); n != 0 {
		t.Errorf("%d refused verification payments recorded", n)
	}
	// No way around the checkout: a payment row written directly, as the
	// verified user or anyone else, is refused, and only the service role
	// completes a payment.
	for _, who := range []caller{user(w.artist), user(w.sponsor), anon} {
		if _, err := e.try(who, `INSERT INTO public.payments (user_id, provider, tx_ref, purpose, amount, vat, fee, total)
			VALUES ($1, 'flutterwave', 'verification-direct', 'verification', 60000, 4500, 1000, 65500)`, w.artist); sqlState(err) != denied {
			t.Errorf("direct payment row as %q: %v", who.uid, err)
		}
	}
}

// TestVerificationRefund: a verification payment that still arrives once the
// profile is verified beyond its renewal days (its checkout opened before) is
// refunded in full, VAT and fee included, with a notification; nothing is
// kept and the verification is not extended.
func TestVerificationRefund(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	checkout := func(uid string) map[string]any {
		t.Helper()
		co, err := e.callJSON(user(uid), `SELECT public.create_payment('flutterwave', 'verification')::text`)
		if err != nil {
			t.Fatal(err)
		}
		return co
	}
	complete := func(co map[string]any, uid string) map[string]any {
		t.Helper()
		r, err := e.serviceJSON(`SELECT public.complete_payment('flutterwave', $1, $2, $3, 'successful', '{}')::text`, co["tx_ref"], uid, co["total"])
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		name    string
		who     string
		verify  string // what verified the profile after the checkout opened
		message string
	}{
		{"an admin verified the profile for good", w.artist, `UPDATE public.public_profiles SET is_verified = true WHERE id = $1`,
			"Your profile is already verified. The ₦65,500 you paid, VAT and fees included, has been refunded to your wallet."},
		{"a verification valid beyond its renewal days", w.sponsor, `UPDATE public.public_profiles SET is_verified = true, verification_expires_at = '2030-03-12 12:00+01' WHERE id = $1`,
			"Your profile is already verified until 12 Mar 2030. The ₦65,500 you paid, VAT and fees included, has been refunded to your wallet."},
	} {
		co := checkout(tc.who)
		e.exec(tc.verify, tc.who)
		expiry := scalar[string](e, `SELECT coalesce(verification_expires_at::text, '') FROM public.public_profiles WHERE id = $1`, tc.who)
		got := complete(co, tc.who)
		want := map[string]any{"success": true, "message": tc.message, "already_processed": false, "session_mismatch": false,
			"amount": 60000.0, "purpose": "verification", "verified_until": got["verified_until"], "credited_to_wallet": true, "refunded": 65500.0}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if b := e.balance(tc.who); b != "65500.00" {
			t.Errorf("%s: wallet %s, want the whole 65500.00", tc.name, b)
		}
		ledger := scalar[string](e, `SELECT amount || ' ' || kind || ' ' || (metadata ->> 'refund') FROM public.transactions WHERE reference = 'payment:flutterwave:' || $1`, co["tx_ref"])
		if ledger != "65500.00 topup true" {
			t.Errorf("%s: ledger row %q", tc.name, ledger)
		}
		note := scalar[string](e, `SELECT title || ' | ' || message || ' | ' || (data ->> 'amount') FROM public.notifications
			WHERE user_id = $1 AND data ->> 'kind' = 'verification_refund'`, tc.who)
		if note != "Verification payment refunded | "+tc.message+" | 65500.00" {
			t.Errorf("%s: notification %q", tc.name, note)
		}
		if now := scalar[string](e, `SELECT coalesce(verification_expires_at::text, '') FROM public.public_profiles WHERE id = $1`, tc.who); now != expiry {
			t.Errorf("%s: expiry moved from %q to %q", tc.name, expiry, now)
		}
		if n := scalar[int64](e, `SELECT count(*) FROM public.verifications WHERE user_id = $1`, tc.who); n != 0 {
			t.Errorf("%s: %d verifications bought", tc.name, n)
		}
		// The same payment reported again refunds nothing more.
		if again := complete(co, tc.who); again["already_processed"] != true || e.balance(tc.who) != "65500.00" {
			t.Errorf("%s: repeat %v, wallet %s", tc.name, again, e.balance(tc.who))
		}
	}
	// Only the service role completes payments: the payer and others are refused.
	co := checkout(w.sponsor2)
	for _, who := range []caller{user(w.sponsor2), user(w.artist2), anon} {
		if _, err := e.try(who, `SELECT public.complete_payment('flutterwave', $1, $2, 65500, 'successful')`, co["tx_ref"], w.sponsor2); sqlState(err) != denied {
			t.Errorf("complete_payment as %q: %v", who.uid, err)
		}
	}
	e.conserved()
}

// TestTrackMedia: a track's audio and cover are the artist's own uploads,
// its duration is the server's, and its media goes with it.
func TestTrackMedia(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	artist, artist2 := user(w.artist), user(w.artist2)
	obj := func(bucket, name string) string {
		e.exec(`INSERT INTO storage.objects (bucket_id, name) VALUES ($1, $2)`, bucket, name)
		return "/storage/v1/object/public/" + bucket + "/" + name
	}
	mine := obj("tracks", w.artist+"/song.wav")
	cover := obj("covers", w.artist+"/cover.jpg")
	theirs := obj("tracks", w.artist2+"/their.wav")
	insert := `INSERT INTO public.tracks (title, artist_id, audio_url, cover_url, duration) VALUES ('New', $1, $2, $3, 999) RETURNING id::text`
	for _, tc := range []struct {
		name, audio string
		cover       any
		msg         string
	}{
		{"another artist's audio", theirs, nil, "Upload the audio to your own folder first"},
		{"audio that was never uploaded", "/storage/v1/object/public/tracks/" + w.artist + "/missing.wav", nil, "Upload the audio to your own folder first"},
		{"audio in the covers bucket", cover, nil, "Upload the audio to your own folder first"},
		{"a path climbing out", "/storage/v1/object/public/tracks/" + w.artist + "/../" + w.artist2 + "/their.wav", nil, "Upload the audio to your own folder first"},
		{"an outside URL", "https://example.com/song.mp3", nil, "Upload the audio to your own folder first"},
		{"another artist's cover", mine, theirs, "Upload the cover to your own folder first"},
	} {
		if _, err := e.try(artist, insert, w.artist, tc.audio, tc.cover); sqlMessage(err) != tc.msg {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.msg)
		}
	}

	var id string
	if err := e.query(artist, insert, []any{w.artist, mine, cover}, &id); err != nil {
		t.Fatal(err)
	}
	duration := func() string {
		return scalar[string](e, `SELECT coalesce(duration::text, 'null') FROM public.tracks WHERE id = $1`, id)
	}
	if d := duration(); d != "null" {
		t.Errorf("claimed duration kept: %s", d)
	}
	if _, err := e.execAs(artist, `UPDATE public.tracks SET duration = 30, title = 'Renamed' WHERE id = $1`, id); err != nil || duration() != "null" {
		t.Errorf("duration update: %v, duration %s", err, duration())
	}
	setDuration := `SELECT public.set_track_duration($1, $2, $3)`
	if _, err := e.try(artist, setDuration, id, mine, 30); sqlState(err) != denied {
		t.Errorf("artist calling set_track_duration: %v", err)
	}
	if _, err := e.serviceExec(setDuration, id, "/storage/v1/object/public/tracks/other.wav", 61); err != nil || duration() != "null" {
		t.Errorf("a measurement of other audio was applied: %v %s", err, duration())
	}
	if _, err := e.serviceExec(setDuration, id, mine, 61); err != nil || duration() != "61" {
		t.Errorf("service measurement: %v %s", err, duration())
	}
	// Someone else cannot edit or delete the track.
	for _, sql := range []string{`UPDATE public.tracks SET title = 'Mine now' WHERE id = $1`, `DELETE FROM public.tracks WHERE id = $1`} {
		if n, err := e.execAs(artist2, sql, id); err != nil || n != 0 {
			t.Errorf("%s as another artist: %d %v", sql, n, err)
		}
	}

	objects := func() string {
		return scalar[string](e, `SELECT coalesce(string_agg(bucket_id || '/' || split_part(name, '/', 2), ',' ORDER BY bucket_id, name), '')
			FROM storage.objects WHERE split_part(name, '/', 1) = $1`, w.artist)
	}
	// New audio: the duration is unknown again and the old object goes.
	next := obj("tracks", w.artist+"/v2.wav")
	if _, err := e.execAs(artist, `UPDATE public.tracks SET audio_url = $2 WHERE id = $1`, id, next); err != nil {
		t.Fatal(err)
	}
	if duration() != "null" || objects() != "covers/cover.jpg,tracks/v2.wav" {
		t.Errorf("after replacing the audio: duration %s, objects %s", duration(), objects())
	}
	// A second track sharing the cover keeps it alive when the first goes.
	var other string
	if err := e.query(artist, `INSERT INTO public.tracks (title, artist_id, cover_url) VALUES ('B-side', $1, $2) RETURNING id::text`,
		[]any{w.artist, cover}, &other); err != nil {
		t.Fatal(err)
	}
	if n, err := e.execAs(artist, `DELETE FROM public.tracks WHERE id = $1`, id); err != nil || n != 1 {
		t.Fatalf("delete own track: %d %v", n, err)
	}
	if got := objects(); got != "covers/cover.jpg" {
		t.Errorf("after deleting the track: %s", got)
	}
	if n, err := e.execAs(artist, `DELETE FROM public.tracks WHERE id = $1`, other); err != nil || n != 1 {
		t.Fatalf("delete second track: %d %v", n, err)
	}
	if got := objects(); got != "" {
		t.Errorf("after deleting both: %s", got)
	}
	if got := scalar[int64](e, `SELECT count(*) FROM storage.objects WHERE name = $1`, w.artist2+"/their.wav"); got != 1 {
		t.Error("another artist's object was removed")
	}
}

// TestLowBalanceNotice: a sponsor's wallet falling under ₦100 notifies once
// per crossing.
func TestLowBalanceNotice(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.sponsor, 200)
	e.fund(w.artist, 200)
	pay := func(from, to string) {
		e.exec(`SELECT public.transfer_funds($1, $2, 50, 'test-' || gen_random_uuid(), 'transfer')`, from, to)
	}
	notices := func(uid string) int64 {
		return scalar[int64](e, `SELECT count(*) FROM public.notifications WHERE user_id = $1 AND title = 'Low wallet balance'`, uid)
	}
	pay(w.sponsor, w.artist) // 150
	pay(w.sponsor, w.artist) // 100: not under yet
	if n := notices(w.sponsor); n != 0 {
		t.Fatalf("notified at ₦100: %d", n)
	}
	pay(w.sponsor, w.artist) // 50
	pay(w.sponsor, w.artist) // 0
	msg := scalar[string](e, `SELECT message FROM public.notifications WHERE user_id = $1 AND title = 'Low wallet balance'`, w.sponsor)
	if n := notices(w.sponsor); n != 1 || msg != "Your wallet balance is ₦50, under ₦100. Top up to keep paying for streams." {
		t.Errorf("notices %d, message %q", n, msg)
	}
	// Artists are not told; a top-up and a new fall tell the sponsor again.
	pay(w.artist, w.artist2)
	pay(w.artist, w.artist2)
	pay(w.artist, w.artist2)
	if n := notices(w.artist); n != 0 {
		t.Errorf("artist notified %d times", n)
	}
	e.fund(w.sponsor, 100)
	pay(w.sponsor, w.artist)
	if n := notices(w.sponsor); n != 2 {
		t.Errorf("after a second fall: %d notices", n)
	}
}

// TestPlaylists: a playlist is its owner's alone; tracks go last; a reorder
// lists every track once.
func TestPlaylists(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	fan, fan2 := user(w.fan), user(w.fan2)
	var list string
	if err := e.query(fan, `INSERT INTO public.playlists (name, user_id) VALUES ('Road trip', $1) RETURNING id::text`, []any{w.fan}, &list); err != nil {
		t.Fatal(err)
	}
	for _, tr := range []string{w.track, w.plainTrack} {
		if _, err := e.execAs(fan, `INSERT INTO public.playlist_tracks (playlist_id, track_id) VALUES ($1, $2)`, list, tr); err != nil {
			t.Fatal(err)
		}
	}
	order := func() string {
		return scalar[string](e, `SELECT string_agg(t.title || ':' || pt.position, ',' ORDER BY pt.position) FROM public.playlist_tracks pt
			JOIN public.tracks t ON t.id = pt.track_id WHERE pt.playlist_id = $1`, list)
	}
	if got := order(); got != "Sponsored Song:1,Plain Song:2" {
		t.Errorf("order %s", got)
	}
	runPolicyCases(t, e, []policyCase{
		{"owner reads", fan, `SELECT * FROM public.playlist_tracks`, nil, 2, ""},
		{"another fan sees no playlist", fan2, `SELECT * FROM public.playlists`, nil, 0, ""},
		{"another fan sees no tracks", fan2, `SELECT * FROM public.playlist_tracks`, nil, 0, ""},
		{"another fan cannot add", fan2, `INSERT INTO public.playlist_tracks (playlist_id, track_id) VALUES ($1, $2)`, []any{list, w.track}, 0, denied},
		{"another fan cannot rename", fan2, `UPDATE public.playlists SET name = 'Mine' WHERE id = $1`, []any{list}, 0, ""},
		{"nobody makes a playlist for someone else", fan2, `INSERT INTO public.playlists (name, user_id) VALUES ('x', $1)`, []any{w.fan}, 0, denied},
		{"owner cannot give the playlist away", fan, `UPDATE public.playlists SET user_id = $2 WHERE id = $1`, []any{list, w.fan2}, 0, denied},
		{"visitor sees no private playlist", anon, `SELECT * FROM public.playlists`, nil, 0, ""},
		{"visitor sees no private playlist track", anon, `SELECT * FROM public.playlist_tracks`, nil, 0, ""},
		{"owner renames", fan, `UPDATE public.playlists SET name = 'Night drive' WHERE id = $1`, []any{list}, 1, ""},
	})
	reorder := `SELECT public.reorder_playlist($1, $2::uuid[])`
	for _, tc := range []struct {
		name string
		as   caller
		ids  []string
		msg  string
	}{
		{"another fan", fan2, []string{w.plainTrack, w.track}, "Playlist not found"},
		{"a missing track", fan, []string{w.plainTrack}, "The new order must list every track of the playlist once"},
		{"a track twice", fan, []string{w.plainTrack, w.plainTrack}, "The new order must list every track of the playlist once"},
		{"a foreign track", fan, []string{w.plainTrack, w.track, w.fan}, "The new order must list every track of the playlist once"},
	} {
		if _, err := e.try(tc.as, reorder, list, tc.ids); sqlMessage(err) != tc.msg {
			t.Errorf("reorder by %s: %v, want %q", tc.name, err, tc.msg)
		}
	}
	if _, err := e.execAs(fan, reorder, list, []string{w.plainTrack, w.track}); err != nil {
		t.Fatal(err)
	}
	if got := order(); got != "Plain Song:1,Sponsored Song:2" {
		t.Errorf("after reorder: %s", got)
	}
}

// TestDashboardFigures checks the figures of 0008 against a ledger built
// by hand: sponsored-stream payments on three local days.
func TestDashboardFigures(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.sponsor, 1000)
	// Three payments today, one two days ago, one 40 days ago (Lagos days).
	paid := func(ago string) {
		id := scalar[string](e, `SELECT public.transfer_funds($1, $2, 50, 'pay-' || gen_random_uuid(), 'sponsored_stream', NULL, $3) ->> 'transaction_id'`,
			w.sponsor, w.artist, w.track)
		e.exec(`UPDATE public.transactions SET created_at = now() - $2::interval WHERE id = $1`, id, ago)
	}
	for _, ago := range []string{"0 s", "0 s", "0 s", "2 days", "40 days"} {
		paid(ago)
	}
	e.exec(`INSERT INTO public.streams (track_id, user_id, is_valid, invalid_reason) VALUES ($1, $2, true, NULL), ($1, $2, true, NULL),
		($1, $2, false, 'Daily stream limit reached!')`, w.track, w.fan)

	art, err := e.callJSON(user(w.artist), `SELECT public.get_artist_dashboard()::text`)
	if err != nil {
		t.Fatal(err)
	}
	wallet := art["wallet"].(map[string]any)
	if wallet["balance"] != 250.0 || wallet["earned"] != 250.0 || wallet["held"] != 0.0 || art["min_cashout"] != 1000.0 {
		t.Errorf("artist wallet %v", art)
	}
	var sponsored map[string]any
	for _, tr := range art["tracks"].([]any) {
		if m := tr.(map[string]any); m["id"] == w.track {
			sponsored = m
		}
	}
	if sponsored == nil || sponsored["earnings"] != 250.0 || sponsored["streams_valid"] != 2.0 || sponsored["streams_all"] != 3.0 ||
		sponsored["sponsor_id"] != w.sponsor || sponsored["sponsor_name"] == nil {
		t.Errorf("sponsored track figures %v", sponsored)
	}
	if v := art["verification"].(map[string]any); v["active"] != false || v["can_buy"] != true {
		t.Errorf("verification %v", v)
	}

	// The statement's periods sum to what was earned in the range.
	statement := func(period, from, to string) (rows int, streams int64, total string) {
		err := e.query(user(w.artist), `SELECT count(*), coalesce(sum(streams), 0), coalesce(sum(amount), 0)::text
			FROM (SELECT (now() AT TIME ZONE 'Africa/Lagos')::date AS today) lagos,
				public.get_earnings_statement($1, lagos.today + $2::int, lagos.today + $3::int)`,
			[]any{period, from, to}, &rows, &streams, &total)
		if err != nil {
			t.Fatalf("statement %s: %v", period, err)
		}
		return rows, streams, total
	}
	if r, n, s := statement("day", "-6", "0"); r != 7 || n != 4 || s != "200.00" {
		t.Errorf("daily statement over 7 days: %d rows, %d streams, %s", r, n, s)
	}
	if r, n, s := statement("day", "-60", "0"); r != 61 || n != 5 || s != "250.00" {
		t.Errorf("daily statement over 61 days: %d rows, %d streams, %s", r, n, s)
	}
	if _, n, s := statement("month", "-60", "0"); n != 5 || s != "250.00" {
		t.Errorf("monthly statement: %d streams, %s", n, s)
	}
	if _, n, s := statement("week", "-60", "0"); n != 5 || s != "250.00" {
		t.Errorf("weekly statement: %d streams, %s", n, s)
	}
	// Another artist's statement has none of it.
	var other string
	if err := e.query(user(w.artist2), `SELECT coalesce(sum(amount), 0)::text FROM public.get_earnings_statement('day', current_date - 1000, current_date + 1)`, nil, &other); err != nil || other != "0" {
		t.Errorf("another artist's statement: %s %v", other, err)
	}
	if _, err := e.try(user(w.artist), `SELECT * FROM public.get_earnings_statement('year', '2020-01-01', '2020-02-01')`); sqlMessage(err) != "period must be day, week or month" {
		t.Errorf("bad period: %v", err)
	}

	sp, err := e.callJSON(user(w.sponsor), `SELECT public.get_sponsor_dashboard()::text`)
	if err != nil {
		t.Fatal(err)
	}
	sw, run := sp["wallet"].(map[string]any), sp["runway"].(map[string]any)
	// ₦750 left; ₦200 spent in the last 7 days is ₦28.57 a day: 26.3 days.
	if sw["balance"] != 750.0 || sw["spent"] != 250.0 || sw["streams_paid"] != 5.0 || sw["low"] != false ||
		run["streams_left"] != 15.0 || run["spent_7d"] != 200.0 || run["days_left"] != 26.3 {
		t.Errorf("sponsor wallet %v runway %v", sw, run)
	}
	if tr := sp["tracks"].([]any); len(tr) != 1 || tr[0].(map[string]any)["spent"] != 250.0 || tr[0].(map[string]any)["streams_paid"] != 5.0 {
		t.Errorf("sponsored tracks %v", tr)
	}
	an, err := e.callJSON(user(w.sponsor), `SELECT public.get_sponsor_analytics(7)::text`)
	if err != nil {
		t.Fatal(err)
	}
	days := an["per_day"].([]any)
	sum := 0.0
	for _, d := range days {
		sum += d.(map[string]any)["amount"].(float64)
	}
	if len(days) != 7 || sum != 200 || days[6].(map[string]any)["amount"] != 150.0 {
		t.Errorf("7-day analytics: %d days, sum %v, %v", len(days), sum, days)
	}
	if a := an["per_artist"].([]any); len(a) != 1 || a[0].(map[string]any)["amount"] != 200.0 {
		t.Errorf("per artist %v", a)
	}
	if tr := an["per_track"].([]any); len(tr) != 1 || tr[0].(map[string]any)["title"] != "Sponsored Song" {
		t.Errorf("per track %v", tr)
	}
	// Another sponsor sees nothing of it.
	if o, err := e.callJSON(user(w.sponsor2), `SELECT public.get_sponsor_analytics(30)::text`); err != nil || len(o["per_artist"].([]any)) != 0 {
		t.Errorf("another sponsor's analytics: %v %v", o, err)
	}

	fan, err := e.callJSON(user(w.fan), `SELECT public.get_fan_dashboard()::text`)
	if err != nil {
		t.Fatal(err)
	}
	hist := fan["history"].([]any)
	reasons := map[any]int{}
	for _, h := range hist {
		reasons[h.(map[string]any)["invalid_reason"]]++
	}
	if len(hist) != 3 || reasons[nil] != 2 || reasons["Daily stream limit reached!"] != 1 ||
		fan["week"].(map[string]any)["valid"] != 2.0 || fan["limit"].(map[string]any)["streams_remaining"] != 100.0 {
		t.Errorf("fan dashboard %v", fan)
	}
	if top := fan["top_artists"].([]any); len(top) != 1 || top[0].(map[string]any)["artist_id"] != w.artist {
		t.Errorf("top artists %v", top)
	}
	for _, fn := range []string{"get_artist_dashboard()", "get_sponsor_dashboard()", "get_fan_dashboard()", "get_sponsor_analytics(7)"} {
		if _, err := e.try(anon, `SELECT public.`+fn); sqlState(err) != denied {
			t.Errorf("visitor calling %s: %v", fn, err)
		}
	}
}
