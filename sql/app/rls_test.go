package app_test

import (
	"testing"
)

// policyCase is one statement run as one role: want is the number of rows
// it returns or changes, or wantErr the SQLSTATE it fails with.
type policyCase struct {
	name    string
	as      caller
	sql     string
	args    []any
	want    int64
	wantErr string
}

func runPolicyCases(t *testing.T, e *env, cases []policyCase) {
	t.Helper()
	for _, tc := range cases {
		n, err := e.try(tc.as, tc.sql, tc.args...)
		if tc.wantErr != "" {
			if got := sqlState(err); got != tc.wantErr {
				t.Errorf("%s: error %q (%v), want SQLSTATE %s", tc.name, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if n != tc.want {
			t.Errorf("%s: %d rows, want %d", tc.name, n, tc.want)
		}
	}
}

const denied = "42501"

// TestPolicies runs every table's policies from each role: visitor, fan,
// another fan, artist, another artist, sponsor, another sponsor and admin,
// the allowed cases and the denials.
func TestPolicies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	fan, fan2, artist, artist2 := user(w.fan), user(w.fan2), user(w.artist), user(w.artist2)
	sponsor, sponsor2, admin := user(w.sponsor), user(w.sponsor2), user(w.admin)

	// Fixtures owned by particular users.
	e.fund(w.sponsor, 1000)
	e.fund(w.fan, 200)
	e.exec(`INSERT INTO public.favorites (track_id, user_id) VALUES ($1, $2)`, w.track, w.fan)
	e.exec(`INSERT INTO public.payments (user_id, provider, tx_ref, purpose, amount, total) VALUES ($1, 'flutterwave', 'flw-x', 'topup', 100, 1108)`, w.fan)
	e.exec(`INSERT INTO public.cashout_requests (user_id, amount) VALUES ($1, 1000)`, w.artist)
	artist2Track := scalar[string](e, `INSERT INTO public.tracks (title, artist_id, duration) VALUES ('Second Song', $1, 200) RETURNING id::text`, w.artist2)
	pendingInvite := scalar[string](e, `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id)
		VALUES ($1, $2, $3) RETURNING id::text`, w.artist, w.sponsor2, w.plainTrack)
	fanNote := scalar[string](e, `SELECT id::text FROM public.notifications WHERE user_id = $1 LIMIT 1`, w.fan)
	profiles := scalar[int64](e, `SELECT count(*) FROM public.public_profiles`)
	publicSettings := scalar[int64](e, `SELECT count(*) FROM public.app_settings WHERE is_public`)
	allSettings := scalar[int64](e, `SELECT count(*) FROM public.app_settings`)

	t.Run("public_profiles", func(t *testing.T) {
		runPolicyCases(t, e, []policyCase{
			{"visitor reads every profile", anon, `SELECT * FROM public.public_profiles`, nil, profiles, ""},
			{"fan reads every profile", fan, `SELECT * FROM public.public_profiles`, nil, profiles, ""},
			{"fan edits own bio", fan, `UPDATE public.public_profiles SET bio = 'hi', display_name = 'Ada' WHERE id = $1`, []any{w.fan}, 1, ""},
			{"fan cannot edit another profile", fan, `UPDATE public.public_profiles SET bio = 'x' WHERE id = $1`, []any{w.fan2}, 0, ""},
			{"fan cannot verify self", fan, `UPDATE public.public_profiles SET is_verified = true WHERE id = $1`, []any{w.fan}, 0, denied},
			{"fan cannot change own role", fan, `UPDATE public.public_profiles SET role = 'admin' WHERE id = $1`, []any{w.fan}, 0, denied},
			{"fan cannot lift a suspension", fan, `UPDATE public.public_profiles SET is_suspended = false, suspended_reason = 'x' WHERE id = $1`, []any{w.fan}, 0, denied},
			{"visitor cannot edit", anon, `UPDATE public.public_profiles SET bio = 'x'`, nil, 0, denied},
			{"admin suspends a user", admin, `UPDATE public.public_profiles SET is_suspended = true, suspended_reason = 'spam' WHERE id = $1`, []any{w.fan}, 1, ""},
			{"admin verifies a user", admin, `UPDATE public.public_profiles SET is_verified = true WHERE id = $1`, []any{w.artist}, 1, ""},
			{"fan cannot delete profiles", fan, `DELETE FROM public.public_profiles WHERE id = $1`, []any{w.fan2}, 0, ""},
		})
	})
	t.Run("user_roles", func(t *testing.T) {
		runPolicyCases(t, e, []policyCase{
			{"visitor counts roles", anon, `SELECT * FROM public.user_roles`, nil, profiles, ""},
			{"fan cannot promote self", fan, `UPDATE public.user_roles SET role = 'admin' WHERE user_id = $1`, []any{w.fan}, 0, ""},
			{"fan cannot add a role", fan, `INSERT INTO public.user_roles (user_id, role) VALUES ($1, 'admin')`, []any{w.fan}, 0, denied},
			{"visitor cannot add a role", anon, `INSERT INTO public.user_roles (user_id, role) VALUES ($1, 'admin')`, []any{w.fan}, 0, denied},
			{"admin changes a role", admin, `UPDATE public.user_roles SET role = 'sponsor' WHERE user_id = $1`, []any{w.fan2}, 1, ""},
		})
	})
	t.Run("role profiles", func(t *testing.T) {
		runPolicyCases(t, e, []policyCase{
			{"visitor reads artists", anon, `SELECT * FROM public.artist_profiles`, nil, 2, ""},
			{"visitor reads sponsors", anon, `SELECT * FROM public.sponsor_profiles`, nil, 2, ""},
			{"visitor reads no fan profile", anon, `SELECT * FROM public.fan_profiles`, nil, 0, ""},
			{"fan reads own fan profile only", fan, `SELECT * FROM public.fan_profiles`, nil, 1, ""},
			{"admin reads fan profiles", admin, `SELECT * FROM public.fan_profiles`, nil, 3, ""},
			{"artist edits own profile", artist, `UPDATE public.artist_profiles SET location = 'Lagos', genres = '{afrobeats}' WHERE id = $1`, []any{w.artist}, 1, ""},
			{"artist cannot edit another artist", artist, `UPDATE public.artist_profiles SET location = 'x' WHERE id = $1`, []any{w.artist2}, 0, ""},
			{"artist cannot approve own KYC", artist, `UPDATE public.artist_profiles SET kyc_status = 'approved' WHERE id = $1`, []any{w.artist}, 0, denied},
			{"admin approves KYC", admin, `UPDATE public.artist_profiles SET kyc_status = 'approved' WHERE id = $1`, []any{w.artist}, 1, ""},
			{"fan cannot create an artist profile", fan, `INSERT INTO public.artist_profiles (id, name) VALUES ($1, 'x')`, []any{w.fan}, 0, denied},
			{"sponsor edits own profile", sponsor, `UPDATE public.sponsor_profiles SET company_name = 'Acme' WHERE id = $1`, []any{w.sponsor}, 1, ""},
			{"sponsor cannot edit another sponsor", sponsor, `UPDATE public.sponsor_profiles SET company_name = 'x' WHERE id = $1`, []any{w.sponsor2}, 0, ""},
			{"fan edits own phone", fan, `UPDATE public.fan_profiles SET phone = '+2348000000000' WHERE id = $1`, []any{w.fan}, 1, ""},
			{"fan cannot edit another fan", fan, `UPDATE public.fan_profiles SET phone = 'x' WHERE id = $1`, []any{w.fan2}, 0, ""},
		})
	})
	t.Run("tracks", func(t *testing.T) {
		runPolicyCases(t, e, []policyCase{
			{"visitor reads tracks", anon, `SELECT * FROM public.tracks`, nil, 3, ""},
			{"artist uploads a track", artist, `INSERT INTO public.tracks (title, artist_id) VALUES ('New', $1)`, []any{w.artist}, 1, ""},
			{"artist cannot upload for another artist", artist, `INSERT INTO public.tracks (title, artist_id) VALUES ('New', $1)`, []any{w.artist2}, 0, denied},
			{"fan cannot upload", fan, `INSERT INTO public.tracks (title, artist_id) VALUES ('New', $1)`, []any{w.artist}, 0, denied},
			{"visitor cannot upload", anon, `INSERT INTO public.tracks (title, artist_id) VALUES ('New', $1)`, []any{w.artist}, 0, denied},
			{"artist edits own track", artist, `UPDATE public.tracks SET title = 'Renamed' WHERE id = $1`, []any{w.track}, 1, ""},
			{"another artist cannot edit it", artist2, `UPDATE public.tracks SET title = 'x' WHERE id = $1`, []any{w.track}, 0, ""},
			{"sponsor cannot edit it", sponsor, `UPDATE public.tracks SET title = 'x' WHERE id = $1`, []any{w.track}, 0, ""},
			{"artist cannot pick a sponsor without an accepted invite", artist, `UPDATE public.tracks SET is_sponsored = true, sponsor_id = $2 WHERE id = $1`, []any{w.plainTrack, w.sponsor2}, 0, denied},
			{"artist cannot move a sponsored track to another sponsor", artist, `UPDATE public.tracks SET sponsor_id = $2 WHERE id = $1`, []any{w.track, w.sponsor2}, 0, denied},
			{"artist may end a sponsorship", artist, `UPDATE public.tracks SET is_sponsored = false, sponsor_id = NULL WHERE id = $1`, []any{w.track}, 1, ""},
			{"artist deletes own track", artist, `DELETE FROM public.tracks WHERE id = $1`, []any{w.plainTrack}, 1, ""},
			{"fan cannot delete a track", fan, `DELETE FROM public.tracks WHERE id = $1`, []any{w.plainTrack}, 0, ""},
			{"admin edits any track", admin, `UPDATE public.tracks SET is_explicit = true WHERE id = $1`, []any{w.plainTrack}, 1, ""},
			{"admin deletes any track", admin, `DELETE FROM public.tracks WHERE id = $1`, []any{w.plainTrack}, 1, ""},
		})
	})
	t.Run("streams", func(t *testing.T) {
		e.listen(fan, w.plainTrack, 31)
		runPolicyCases(t, e, []policyCase{
			{"visitor cannot read streams", anon, `SELECT * FROM public.streams`, nil, 0, denied},
			{"fan reads own streams", fan, `SELECT * FROM public.streams`, nil, 1, ""},
			{"another fan reads none of them", fan2, `SELECT * FROM public.streams`, nil, 0, ""},
			{"the track's artist reads none of them", artist, `SELECT * FROM public.streams`, nil, 0, ""},
			{"admin reads every stream", admin, `SELECT * FROM public.streams`, nil, 1, ""},
			{"visitors count streams through the platform figures", anon,
				`SELECT 1 WHERE (public.get_platform_stats() ->> 'total_streams')::int = 1`, nil, 1, ""},
			{"visitors rank fans through get_top_fans", anon, `SELECT * FROM public.get_top_fans(8) WHERE user_id = $1 AND stream_count = 1`,
				[]any{w.fan}, 1, ""},
			{"an address filter finds nothing: streams keep keys, not IPs", fan, `SELECT id FROM public.streams WHERE ip_address = '198.51.100.7'`, nil, 0, ""},
			{"fan inserts a stream", fan, `INSERT INTO public.streams (track_id, user_id, duration, is_valid) VALUES ($1, $2, 30, true)`, []any{w.track, w.fan}, 1, ""},
			{"visitor cannot insert", anon, `INSERT INTO public.streams (track_id, duration) VALUES ($1, 30)`, []any{w.track}, 0, denied},
			{"fan cannot update streams", fan, `UPDATE public.streams SET is_valid = true`, nil, 0, denied},
			{"fan cannot delete streams", fan, `DELETE FROM public.streams`, nil, 0, denied},
			{"fan cannot set server columns", fan, `INSERT INTO public.streams (track_id, user_id, paid_reference) VALUES ($1, $2, 'x')`, []any{w.track, w.fan}, 0, denied},
			{"fan cannot write play sessions", fan, `INSERT INTO public.play_sessions (user_id, track_id, started_at) VALUES ($1, $2, now() - interval '1 hour')`, []any{w.fan, w.track}, 0, denied},
		})
	})
	t.Run("favorites", func(t *testing.T) {
		runPolicyCases(t, e, []policyCase{
			{"fan reads own favorites", fan, `SELECT * FROM public.favorites`, nil, 1, ""},
			{"another fan sees none", fan2, `SELECT * FROM public.favorites`, nil, 0, ""},
			{"visitor sees none", anon, `SELECT * FROM public.favorites`, nil, 0, ""},
			{"fan likes a track", fan2, `INSERT INTO public.favorites (track_id, user_id) VALUES ($1, $2)`, []any{w.track, w.fan2}, 1, ""},
			{"fan cannot like for another", fan2, `INSERT INTO public.favorites (track_id, user_id) VALUES ($1, $2)`, []any{w.plainTrack, w.fan}, 0, denied},
			{"fan cannot unlike for another", fan2, `DELETE FROM public.favorites WHERE user_id = $1`, []any{w.fan}, 0, ""},
			{"fan unlikes", fan, `DELETE FROM public.favorites WHERE user_id = $1`, []any{w.fan}, 1, ""},
		})
	})
	t.Run("sponsor_artist_invites", func(t *testing.T) {
		runPolicyCases(t, e, []policyCase{
			{"sponsor invites an artist", sponsor, `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id, pitch) VALUES ($1, $2, $3, 'Let us work')`, []any{w.artist2, w.sponsor, artist2Track}, 1, ""},
			{"sponsor cannot invite in another sponsor's name", sponsor, `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id) VALUES ($1, $2, $3)`, []any{w.artist2, w.sponsor2, artist2Track}, 0, denied},
			{"artist pitches to a sponsor", artist2, `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id, pitch) VALUES ($1, $2, $3, 'Back me')`, []any{w.artist2, w.sponsor, artist2Track}, 1, ""},
			{"fan cannot invite", fan, `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id) VALUES ($1, $2, $3)`, []any{w.artist, w.sponsor, w.plainTrack}, 0, denied},
			{"artist sees own invites", artist, `SELECT * FROM public.sponsor_artist_invites`, nil, 2, ""},
			{"other sponsor sees own invite only", sponsor2, `SELECT * FROM public.sponsor_artist_invites`, nil, 1, ""},
			{"fan sees none", fan, `SELECT * FROM public.sponsor_artist_invites`, nil, 0, ""},
			{"admin sees all", admin, `SELECT * FROM public.sponsor_artist_invites`, nil, 2, ""},
			{"invited artist accepts by update", artist, `UPDATE public.sponsor_artist_invites SET status = 'accepted' WHERE id = $1`, []any{pendingInvite}, 1, ""},
			{"initiating sponsor cannot accept own invite", sponsor2, `UPDATE public.sponsor_artist_invites SET status = 'accepted' WHERE id = $1`, []any{pendingInvite}, 0, ""},
			{"a stranger cannot answer", sponsor, `UPDATE public.sponsor_artist_invites SET status = 'rejected' WHERE id = $1`, []any{pendingInvite}, 0, ""},
			{"artist cannot answer an answered invite", artist, `UPDATE public.sponsor_artist_invites SET status = 'rejected' WHERE status = 'accepted'`, nil, 0, "P0001"},
			{"initiator withdraws a pending invite", sponsor2, `DELETE FROM public.sponsor_artist_invites WHERE id = $1`, []any{pendingInvite}, 1, ""},
		})
	})
	t.Run("money", func(t *testing.T) {
		runPolicyCases(t, e, []policyCase{
			{"fan reads own wallet only", fan, `SELECT * FROM public.wallets`, nil, 1, ""},
			{"admin reads all wallets", admin, `SELECT * FROM public.wallets WHERE kind = 'user'`, nil, 7, ""},
			{"visitor reads no wallet", anon, `SELECT * FROM public.wallets`, nil, 0, denied},
			{"fan cannot change a balance", fan, `UPDATE public.wallets SET balance = 1000000 WHERE id = $1`, []any{w.fan}, 0, denied},
			{"fan cannot create a wallet", fan, `INSERT INTO public.wallets (id, user_id) VALUES (gen_random_uuid(), $1)`, []any{w.fan}, 0, denied},
			{"sponsor reads own transactions", sponsor, `SELECT * FROM public.transactions`, nil, 1, ""},
			{"another sponsor sees none", sponsor2, `SELECT * FROM public.transactions`, nil, 0, ""},
			{"admin reads the ledger", admin, `SELECT * FROM public.transactions`, nil, 2, ""},
			{"visitor reads no ledger", anon, `SELECT * FROM public.transactions`, nil, 0, denied},
			{"sponsor cannot write the ledger", sponsor, `INSERT INTO public.transactions (reference, kind, from_wallet, to_wallet, amount, from_balance_after, to_balance_after) VALUES ('x', 'transfer', $1, $2, 1, 0, 0)`, []any{w.sponsor, w.fan}, 0, denied},
			{"fan reads own payments", fan, `SELECT * FROM public.payments`, nil, 1, ""},
			{"another fan sees none", fan2, `SELECT * FROM public.payments`, nil, 0, ""},
			{"fan cannot mark a payment successful", fan, `UPDATE public.payments SET status = 'successful'`, nil, 0, denied},
			{"fan cannot create a payment row", fan, `INSERT INTO public.payments (user_id, provider, tx_ref, purpose, amount, total) VALUES ($1, 'paystack', 'x', 'topup', 1, 1)`, []any{w.fan}, 0, denied},
			{"artist reads own cash-outs", artist, `SELECT * FROM public.cashout_requests`, nil, 1, ""},
			{"fan sees no cash-outs", fan, `SELECT * FROM public.cashout_requests`, nil, 0, ""},
			{"admin reads cash-outs", admin, `SELECT * FROM public.cashout_requests`, nil, 1, ""},
			{"artist cannot complete own cash-out", artist, `UPDATE public.cashout_requests SET status = 'completed'`, nil, 0, denied},
			{"artist cannot insert a cash-out", artist, `INSERT INTO public.cashout_requests (user_id, amount) VALUES ($1, 5000)`, []any{w.artist}, 0, denied},
			{"fan cannot read settlements", fan, `SELECT * FROM public.stream_settlements`, nil, 0, ""},
			{"fan cannot grant a verification", fan, `INSERT INTO public.verifications (user_id, expires_at) VALUES ($1, now() + interval '1 year')`, []any{w.fan}, 0, denied},
			{"fan cannot refill a stream allowance", fan, `INSERT INTO public.daily_stream_limits (user_id, limit_date, daily_limit) VALUES ($1, current_date + 1, 1000)`, []any{w.fan}, 0, denied},
			{"fan cannot plant a device", fan, `INSERT INTO public.device_fingerprints (user_id, fingerprint) VALUES ($1, 'x')`, []any{w.fan}, 0, denied},
			{"fan cannot truncate", fan, `TRUNCATE public.streams`, nil, 0, denied},
		})
	})
	t.Run("notifications", func(t *testing.T) {
		runPolicyCases(t, e, []policyCase{
			{"fan reads own notifications", fan, `SELECT * FROM public.notifications`, nil, 1, ""},
			{"admin reads only own notifications", admin, `SELECT * FROM public.notifications WHERE user_id = $1`, []any{w.fan}, 0, ""},
			{"visitor reads none", anon, `SELECT * FROM public.notifications`, nil, 0, denied},
			{"fan marks own read", fan, `UPDATE public.notifications SET is_read = true WHERE id = $1 AND user_id = $2`, []any{fanNote, w.fan}, 1, ""},
			{"fan marks all read", fan, `UPDATE public.notifications SET is_read = true WHERE user_id = $1 AND NOT is_read`, []any{w.fan}, 1, ""},
			{"another fan cannot mark it", fan2, `UPDATE public.notifications SET is_read = true WHERE id = $1`, []any{fanNote}, 0, ""},
			{"fan cannot rewrite a notification", fan, `UPDATE public.notifications SET title = 'x' WHERE id = $1`, []any{fanNote}, 0, denied},
			{"fan cannot send notifications", fan, `INSERT INTO public.notifications (user_id, type, title, message) VALUES ($1, 'system_update', 'x', 'y')`, []any{w.fan2}, 0, denied},
			{"another fan cannot delete it", fan2, `DELETE FROM public.notifications WHERE id = $1`, []any{fanNote}, 0, ""},
			{"fan deletes own", fan, `DELETE FROM public.notifications WHERE id = $1 AND user_id = $2`, []any{fanNote, w.fan}, 1, ""},
		})
	})
	t.Run("waitlist, settings, activity", func(t *testing.T) {
		runPolicyCases(t, e, []policyCase{
			{"visitor joins the waitlist", anon, `INSERT INTO public.early_access_subscribers (email, role) VALUES ('a@example.com', 'fan')`, nil, 1, ""},
			{"a bad role is refused", anon, `INSERT INTO public.early_access_subscribers (email, role) VALUES ('b@example.com', 'admin')`, nil, 0, "23514"},
			{"visitor cannot read the waitlist", anon, `SELECT * FROM public.early_access_subscribers`, nil, 0, denied},
			{"visitor reads public settings", anon, `SELECT * FROM public.app_settings`, nil, publicSettings, ""},
			{"admin reads every setting", admin, `SELECT * FROM public.app_settings`, nil, allSettings, ""},
			{"fan cannot change settings", fan, `UPDATE public.app_settings SET value = '1' WHERE key = 'min_cashout'`, nil, 0, ""},
			{"visitor cannot change settings", anon, `UPDATE public.app_settings SET value = '1'`, nil, 0, denied},
			{"admin changes a setting", admin, `UPDATE public.app_settings SET value = 'true' WHERE key = 'coming_soon_enabled'`, nil, 1, ""},
			{"fan cannot read activity", fan, `SELECT * FROM public.activity_log`, nil, 0, ""},
			{"visitor cannot read activity", anon, `SELECT * FROM public.activity_log`, nil, 0, denied},
			{"fan cannot write activity", fan, `INSERT INTO public.activity_log (action) VALUES ('x')`, nil, 0, denied},
		})
		if n := scalar[int64](e, `SELECT count(*) FROM public.activity_log`); n == 0 {
			t.Error("activity log is empty")
		}
		// The admin reads the activity feed.
		n, err := e.try(admin, `SELECT * FROM public.activity_log`)
		if err != nil || n == 0 {
			t.Errorf("admin reads %d activity rows: %v", n, err)
		}
		e.exec(`INSERT INTO public.early_access_subscribers (email, role) VALUES ('dup@example.com', 'fan')`)
		if _, err := e.try(anon, `INSERT INTO public.early_access_subscribers (email, role) VALUES ('DUP@example.com', 'artist')`); sqlState(err) != "23505" {
			t.Errorf("duplicate email: %v, want 23505", err)
		}
		if n, err := e.try(admin, `SELECT * FROM public.early_access_subscribers`); err != nil || n != 1 {
			t.Errorf("admin reads the waitlist: %d rows, %v", n, err)
		}
	})

	t.Run("admin user list", func(t *testing.T) {
		runPolicyCases(t, e, []policyCase{
			{"admin lists users with e-mail", admin, `SELECT * FROM public.admin_search_users(p_limit => 100) WHERE email LIKE '%@example.com'`, nil, profiles, ""},
			{"fan cannot list users", fan, `SELECT * FROM public.admin_search_users()`, nil, 0, denied},
			{"visitor cannot list users", anon, `SELECT * FROM public.admin_search_users()`, nil, 0, denied},
		})
	})

	t.Run("guarded columns keep their values", func(t *testing.T) {
		e.exec(`UPDATE public.tracks SET streams = 0 WHERE id = $1`, w.track)
		if _, err := e.execAs(artist, `UPDATE public.tracks SET streams = 1000000 WHERE id = $1`, w.track); err != nil {
			t.Fatal(err)
		}
		if _, err := e.execAs(artist, `UPDATE public.artist_profiles SET stream_count = 999, track_count = 99 WHERE id = $1`, w.artist); err != nil {
			t.Fatal(err)
		}
		got := scalar[string](e, `SELECT t.streams || '/' || a.stream_count || '/' || a.track_count FROM public.tracks t
			JOIN public.artist_profiles a ON a.id = t.artist_id WHERE t.id = $1`, w.track)
		if got != "0/1/2" {
			t.Errorf("streams/stream_count/track_count = %s, want 0/1/2", got)
		}
	})
}

// TestMediaPolicies checks the storage policies of 0005 and 0034: images are
// public to read, audio only as backline.may_play_audio allows (see
// TestTrackAudioIsSignedByPostgres); users write only into their own folder;
// audio only artists.
func TestMediaPolicies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Storage is part of the platform, so Backline's buckets are always
	// made: one missing is a failure, never a reason to skip these cases.
	buckets := scalar[string](e, `SELECT coalesce(string_agg(id || ':' || public, ',' ORDER BY id), '') FROM storage.buckets
		WHERE id IN ('avatars', 'covers', 'kyc', 'tracks')`)
	if want := "avatars:true,covers:true,kyc:false,tracks:false"; buckets != want {
		t.Fatalf("Backline's buckets (id:public) = %q, want %q", buckets, want)
	}
	w := e.newWorld()
	e.exec(`INSERT INTO storage.objects (bucket_id, name) VALUES ('covers', $1 || '/cover.jpg')`, w.artist)
	e.exec(`INSERT INTO storage.objects (bucket_id, name) VALUES ('tracks', $1 || '/unreleased.mp3')`, w.artist)
	put := `INSERT INTO storage.objects (bucket_id, name) VALUES ($1, $2)`
	runPolicyCases(t, e, []policyCase{
		{"visitor reads media", anon, `SELECT * FROM storage.objects WHERE bucket_id = 'covers'`, nil, 1, ""},
		{"artist uploads audio to own folder", user(w.artist), put, []any{"tracks", w.artist + "/song.mp3"}, 1, ""},
		{"artist uploads a cover", user(w.artist), put, []any{"covers", w.artist + "/new.jpg"}, 1, ""},
		{"artist cannot upload into another folder", user(w.artist), put, []any{"tracks", w.artist2 + "/song.mp3"}, 0, denied},
		{"fan uploads an avatar", user(w.fan), put, []any{"avatars", w.fan + "/me.png"}, 1, ""},
		{"fan cannot upload audio", user(w.fan), put, []any{"tracks", w.fan + "/song.mp3"}, 0, denied},
		{"fan uploads a playlist cover", user(w.fan), put, []any{"covers", w.fan + "/mix.jpg"}, 1, ""},
		{"fan cannot upload a cover into another folder", user(w.fan), put, []any{"covers", w.fan2 + "/mix.jpg"}, 0, denied},
		{"fan cannot upload into another folder", user(w.fan), put, []any{"avatars", w.fan2 + "/me.png"}, 0, denied},
		{"visitor cannot upload", anon, put, []any{"avatars", "x/me.png"}, 0, denied},
		{"another artist cannot replace the cover", user(w.artist2), `UPDATE storage.objects SET metadata = '{}' WHERE bucket_id = 'covers'`, nil, 0, ""},
		{"artist replaces own cover", user(w.artist), `UPDATE storage.objects SET metadata = '{}' WHERE bucket_id = 'covers'`, nil, 1, ""},
		{"visitor cannot read unreleased audio", anon, `SELECT * FROM storage.objects WHERE bucket_id = 'tracks'`, nil, 0, ""},
		{"another artist cannot read unreleased audio", user(w.artist2), `SELECT * FROM storage.objects WHERE bucket_id = 'tracks'`, nil, 0, ""},
		{"artist reads own audio", user(w.artist), `SELECT * FROM storage.objects WHERE bucket_id = 'tracks'`, nil, 1, ""},
	})
}

// TestFunctionPrivileges pins who may call what: visitors only the public
// read functions, nobody but the service role the money primitives, and no
// API role reaches the internal schema.
func TestFunctionPrivileges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	list := func(sql string) string {
		return scalar[string](e, `SELECT coalesce(string_agg(p.proname, ',' ORDER BY p.proname), '') FROM pg_proc p
			JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND `+sql)
	}
	got := map[string]string{
		"anon": list(`has_function_privilege('anon', p.oid, 'EXECUTE')`),
		"service only": list(`NOT has_function_privilege('authenticated', p.oid, 'EXECUTE')
			AND has_function_privilege('service_role', p.oid, 'EXECUTE')`),
		"invoker rights": list(`NOT p.prosecdef`),
		// Policies call backline.active_uid() and (storage's, for track
		// audio) backline.may_play_audio, whoever writes a name computes
		// its search index entry with backline.fold, and the app server asks
		// backline.og_meta for link previews as a visitor; nothing else in
		// the schema is the API roles'.
		"backline callable": scalar[string](e, `SELECT coalesce(string_agg(p.proname, ',' ORDER BY p.proname), '') FROM pg_proc p
			JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'backline'
			AND (has_function_privilege('anon', p.oid, 'EXECUTE') OR has_function_privilege('authenticated', p.oid, 'EXECUTE'))`),
	}
	want := map[string]string{
		"anon":              "get_app_bootstrap,get_app_setting,get_app_text_setting,get_genre_station,get_platform_stats,get_playlist,get_top_fans,has_valid_kyc,is_admin,list_genres,search_catalog,verification_active",
		"service only":      "complete_payment,set_track_duration,transfer_funds",
		"invoker rights":    "get_app_bootstrap,get_artist_first_screen,get_fan_first_screen,get_sponsor_first_screen,has_valid_kyc,verification_active",
		"backline callable": "active_uid,caller_is_active,fold,may_play_audio,og_meta",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s, want %s", k, got[k], w)
		}
	}
}
