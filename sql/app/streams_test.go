package app_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

// TestStreamValidity: the server, not the client, decides whether a stream
// counts, and says why not in the spec's words.
func TestStreamValidity(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()

	t.Run("a fan who listened 30 s makes a valid stream", func(t *testing.T) {
		if valid, reason := e.listen(user(w.fan), w.plainTrack, 30); !valid {
			t.Fatalf("invalid: %s", reason)
		}
	})
	cases := []struct {
		name   string
		as     func() caller
		age    int
		want   string
		noPlay bool
	}{
		{"listening under 30 s", func() caller { return user(e.signUp("fan")) }, 12, "Stream not valid (listened 12 s, minimum 30 s)", false},
		{"27 s is too short even with the network grace", func() caller { return user(e.signUp("fan")) }, 27, "Stream not valid (listened 27 s, minimum 30 s)", false},
		{"no play started", func() caller { return user(e.signUp("fan")) }, 0, "Stream not valid (no play of this track was started)", true},
		{"the artist on own track", func() caller { return user(w.artist) }, 40, "Stream not valid (not from fan or self-streaming)", false},
		{"another artist", func() caller { return user(w.artist2) }, 40, "Stream not valid (not from fan or self-streaming)", false},
		{"a sponsor", func() caller { return user(w.sponsor) }, 40, "Stream not valid (not from fan or self-streaming)", false},
		{"an admin", func() caller { return user(w.admin) }, 40, "Stream not valid (not from fan or self-streaming)", false},
	}
	for _, tc := range cases {
		c := tc.as()
		var valid bool
		var reason string
		if tc.noPlay {
			valid, reason = e.insertStream(c, w.plainTrack)
		} else {
			valid, reason = e.listen(c, w.plainTrack, tc.age)
		}
		if valid || reason != tc.want {
			t.Errorf("%s: valid=%v reason %q, want %q", tc.name, valid, reason, tc.want)
		}
	}
	// A suspended fan's stream is neither recorded nor counted: refused.
	suspended := e.signUp("fan")
	e.exec(`UPDATE public.public_profiles SET is_suspended = true, suspended_reason = 'abuse' WHERE id = $1`, suspended)
	_, err := e.execAs(user(suspended), `INSERT INTO public.streams (track_id, user_id, duration, is_valid) VALUES ($1, $2, 40, true)`,
		w.plainTrack, suspended)
	if sqlMessage(err) != "User is suspended and cannot generate valid streams" {
		t.Errorf("a suspended fan's stream: %v", err)
	}

	t.Run("28 s counts: 2 s of grace for the start_play round trip", func(t *testing.T) {
		fan := user(e.signUp("fan"))
		fan.ip = "192.0.2.128"
		if valid, reason := e.listen(fan, w.plainTrack, 28); !valid {
			t.Errorf("28 s: %s", reason)
		}
	})
	t.Run("server columns are the server's", func(t *testing.T) {
		fan := user(e.signUp("fan"))
		fan.ip = "203.0.113.50"
		var play string
		if err := e.query(fan, `SELECT public.start_play($1)::text`, []any{w.plainTrack}, &play); err != nil {
			t.Fatal(err)
		}
		e.exec(`UPDATE public.play_sessions SET started_at = now() - interval '35 seconds' WHERE id = $1`, play)
		// Claims another user, a fake address, an old date and a long listen.
		_, err := e.execAs(fan, `INSERT INTO public.streams (track_id, user_id, duration, is_valid, ip_address)
			VALUES ($1, $2, 9999, true, '8.8.8.8')`, w.plainTrack, w.fan2)
		if err != nil {
			t.Fatal(err)
		}
		got := scalar[string](e, `SELECT user_id || ' ' || ip_address || ' ' || duration || ' ' || is_valid || ' ' || (created_at > now() - interval '1 minute')
			FROM public.streams WHERE play_session_id = $1`, play)
		key := scalar[string](e, `SELECT backline.ip_key('203.0.113.50')`)
		want := fan.uid + " " + key + " 35 true true"
		if got != want {
			t.Errorf("stream = %q, want %q", got, want)
		}
		if strings.Contains(key, "203.0.113") || len(key) != 36 || key != scalar[string](e, `SELECT backline.ip_key('203.0.113.50')`) ||
			key == scalar[string](e, `SELECT backline.ip_key('203.0.113.51')`) {
			t.Errorf("address key %q", key)
		}
		// The play is used up: a second insert from it does not count.
		if valid, reason := e.insertStream(fan, w.plainTrack); valid || reason != "Stream not valid (no play of this track was started)" {
			t.Errorf("second stream from one play: valid=%v %q", valid, reason)
		}
	})
	t.Run("starting another track closes the first play", func(t *testing.T) {
		fan := user(e.signUp("fan"))
		var first string
		if err := e.query(fan, `SELECT public.start_play($1)::text`, []any{w.track}, &first); err != nil {
			t.Fatal(err)
		}
		e.exec(`UPDATE public.play_sessions SET started_at = now() - interval '40 seconds' WHERE id = $1`, first)
		if err := e.query(fan, `SELECT public.start_play($1)::text`, []any{w.plainTrack}, new(string)); err != nil {
			t.Fatal(err)
		}
		if valid, _ := e.insertStream(fan, w.track); valid {
			t.Error("stream of a closed play counted")
		}
	})
	t.Run("visitors cannot start plays", func(t *testing.T) {
		if _, err := e.try(anon, `SELECT public.start_play($1)`, w.track); sqlState(err) != denied {
			t.Errorf("anon start_play: %v", err)
		}
		if _, err := e.try(user(w.fan), `SELECT public.start_play(gen_random_uuid())`); sqlMessage(err) != "Track not found" {
			t.Errorf("unknown track: %v", err)
		}
	})
}

// TestStreamLimits checks the duplicate, velocity and allowance limits at
// their boundaries.
func TestStreamLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()

	t.Run("3 per track per IP in 24 h", func(t *testing.T) {
		for i := 1; i <= 3; i++ {
			if valid, reason := e.listen(user(e.signUp("fan")), w.track, 31); !valid {
				t.Fatalf("stream %d: %s", i, reason)
			}
		}
		valid, reason := e.listen(user(e.signUp("fan")), w.track, 31)
		if valid || reason != "Duplicate stream prevented - allowance type: ip" {
			t.Errorf("4th stream from the IP: valid=%v %q", valid, reason)
		}
		other := user(e.signUp("fan"))
		other.ip = "192.0.2.200"
		if valid, reason := e.listen(other, w.track, 31); !valid {
			t.Errorf("another IP: %s", reason)
		}
		// Streams older than the window no longer count.
		e.exec(`UPDATE public.streams SET created_at = now() - interval '25 hours' WHERE ip_address = backline.ip_key('198.51.100.7')`)
		if valid, reason := e.listen(user(e.signUp("fan")), w.track, 31); !valid {
			t.Errorf("after the window: %s", reason)
		}
	})
	t.Run("without an address the limit is per user", func(t *testing.T) {
		fan := caller{uid: e.signUp("fan")}
		for i := 1; i <= 3; i++ {
			if valid, reason := e.listen(fan, w.plainTrack, 31); !valid {
				t.Fatalf("stream %d: %s", i, reason)
			}
		}
		if valid, reason := e.listen(fan, w.plainTrack, 31); valid || reason != "Duplicate stream prevented - allowance type: user" {
			t.Errorf("4th stream: valid=%v %q", valid, reason)
		}
	})
	// seed gives the fan n valid streams made at the given age, from other
	// addresses, as history.
	seed := func(fan string, n int, age string) {
		e.exec(`INSERT INTO public.streams (track_id, user_id, duration, is_valid, ip_address, created_at)
			SELECT $1, $2, 31, true, '10.9.' || (g / 250) || '.' || (g % 250), now() - $4::interval
			FROM generate_series(1, $3) g`, w.plainTrack, fan, n, age)
	}
	t.Run("25 per hour", func(t *testing.T) {
		ok, over := e.signUp("fan"), e.signUp("fan")
		seed(ok, 24, "30 minutes")
		seed(over, 25, "30 minutes")
		if valid, reason := e.listen(caller{uid: ok, ip: "192.0.2.71"}, w.track, 31); !valid {
			t.Errorf("25th stream in the hour: %s", reason)
		}
		if valid, reason := e.listen(caller{uid: over, ip: "192.0.2.72"}, w.track, 31); valid || reason != "Velocity limit exceeded: 25 streams in last hour" {
			t.Errorf("26th stream in the hour: valid=%v %q", valid, reason)
		}
	})
	t.Run("200 per day", func(t *testing.T) {
		ok, over := e.signUp("fan"), e.signUp("fan")
		seed(ok, 199, "3 hours")
		seed(over, 200, "3 hours")
		if valid, reason := e.listen(caller{uid: ok, ip: "192.0.2.81"}, w.track, 31); !valid {
			t.Errorf("200th stream in the day: %s", reason)
		}
		if valid, reason := e.listen(caller{uid: over, ip: "192.0.2.82"}, w.track, 31); valid || reason != "Velocity limit exceeded: 200 streams in last 24 hours" {
			t.Errorf("201st stream in the day: valid=%v %q", valid, reason)
		}
	})
	t.Run("daily allowance", func(t *testing.T) {
		fan := user(e.signUp("fan"))
		e.exec(`INSERT INTO public.daily_stream_limits (user_id, limit_date, daily_limit) VALUES ($1, backline.today(), 2)`, fan.uid)
		tracks := []string{w.track, w.plainTrack}
		for i := 0; i < 2; i++ {
			fan.ip = fmt.Sprintf("192.0.2.%d", 10+i)
			if valid, reason := e.listen(fan, tracks[i], 31); !valid {
				t.Fatalf("stream %d: %s", i+1, reason)
			}
		}
		fan.ip = "192.0.2.30"
		if valid, reason := e.listen(fan, w.track, 31); valid || reason != "Daily stream limit reached!" {
			t.Errorf("3rd stream: valid=%v %q", valid, reason)
		}
	})
}

func TestCountersFollowValidStreams(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	for i := 0; i < 3; i++ {
		e.listen(user(e.signUp("fan")), w.track, 31)
	}
	e.listen(user(w.artist), w.track, 31)        // invalid: own track
	e.listen(user(e.signUp("fan")), w.track, 5)  // invalid: too short
	e.listen(user(e.signUp("fan")), w.track, 31) // invalid: 4th from the IP
	fan := user(e.signUp("fan"))
	fan.ip = "192.0.2.1"
	e.listen(fan, w.plainTrack, 31)

	counts := func() string {
		return scalar[string](e, `SELECT (SELECT streams FROM public.tracks WHERE id = $1) || '/' ||
			(SELECT streams FROM public.tracks WHERE id = $2) || '/' ||
			(SELECT stream_count FROM public.artist_profiles WHERE id = $3)`, w.track, w.plainTrack, w.artist)
	}
	if got := counts(); got != "3/1/4" {
		t.Fatalf("counters = %s, want 3/1/4", got)
	}
	// The spec's fallback increments, called by hand many times, change
	// nothing and answer the counters.
	for i := 0; i < 5; i++ {
		var nt, na int64
		if err := e.query(user(w.fan), `SELECT public.increment_track_streams($1), public.increment_artist_streams($2)`,
			[]any{w.track, w.artist}, &nt, &na); err != nil || nt != 3 || na != 4 {
			t.Fatalf("increments = %d, %d (%v); want 3, 4", nt, na, err)
		}
	}
	if got := counts(); got != "3/1/4" {
		t.Errorf("after hand-made increments = %s, want 3/1/4", got)
	}
	// The owner's changes to streams move the counters too: a stream made
	// invalid, one deleted, one moved to the other track.
	e.exec(`UPDATE public.streams SET is_valid = false WHERE id = (SELECT id FROM public.streams WHERE track_id = $1 AND is_valid LIMIT 1)`, w.track)
	if got := counts(); got != "2/1/3" {
		t.Errorf("after a stream was made invalid = %s, want 2/1/3", got)
	}
	e.exec(`DELETE FROM public.streams WHERE id = (SELECT id FROM public.streams WHERE track_id = $1 AND is_valid LIMIT 1)`, w.track)
	if got := counts(); got != "1/1/2" {
		t.Errorf("after a valid stream was deleted = %s, want 1/1/2", got)
	}
	e.exec(`UPDATE public.streams SET track_id = $2 WHERE id = (SELECT id FROM public.streams WHERE track_id = $1 AND is_valid LIMIT 1)`,
		w.track, w.plainTrack)
	if got := counts(); got != "0/2/2" {
		t.Errorf("after a stream moved track = %s, want 0/2/2", got)
	}
	// A deleted track's streams leave its artist's count.
	e.exec(`DELETE FROM public.tracks WHERE id = $1`, w.plainTrack)
	if got := scalar[int64](e, `SELECT stream_count FROM public.artist_profiles WHERE id = $1`, w.artist); got != 0 {
		t.Errorf("artist stream_count after the track was deleted = %d, want 0", got)
	}
}

// TestIncrementsAreCheap: the spec's increment_* calls read the counters the
// trigger keeps: they scan no stream and wait for no lock, even while
// another transaction holds the track's and the artist's rows.
func TestIncrementsAreCheap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	for i := 0; i < 3; i++ {
		fan := user(e.signUp("fan"))
		fan.ip = fmt.Sprintf("192.0.2.%d", i+1)
		e.listen(fan, w.track, 31)
	}
	holder, err := e.db.Admin.Begin(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(e.ctx) //nolint:errcheck
	if _, err := holder.Exec(e.ctx, `SELECT 1 FROM public.tracks WHERE id = $1 FOR UPDATE`, w.track); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(e.ctx, `SELECT 1 FROM public.artist_profiles WHERE id = $1 FOR UPDATE`, w.artist); err != nil {
		t.Fatal(err)
	}
	err = e.as(user(w.fan), func(tx pgx.Tx) error {
		if _, err := tx.Exec(e.ctx, `SET LOCAL lock_timeout = '2s'`); err != nil {
			return err
		}
		scans := `SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0) FROM pg_stat_xact_user_tables WHERE relid = 'public.streams'::regclass`
		var before, after, nt, na int64
		if err := tx.QueryRow(e.ctx, scans).Scan(&before); err != nil {
			return err
		}
		if err := tx.QueryRow(e.ctx, `SELECT public.increment_track_streams($1), public.increment_artist_streams($2)`, w.track, w.artist).
			Scan(&nt, &na); err != nil {
			return err
		}
		if err := tx.QueryRow(e.ctx, scans).Scan(&after); err != nil {
			return err
		}
		if nt != 3 || na != 3 {
			t.Errorf("increments = %d, %d; want 3, 3", nt, na)
		}
		if after != before {
			t.Errorf("the increments read streams (%d scans)", after-before)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("increments while the rows are locked: %v", err)
	}
}

// TestCountersUnderConcurrentPlays: fans playing the same track at once,
// each calling the spec's increments after their stream as the player does,
// leave the counters equal to the valid streams.
func TestCountersUnderConcurrentPlays(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	const fans = 12
	type play struct {
		c    caller
		play string
	}
	plays := make([]play, fans)
	for i := range plays {
		c := user(e.signUp("fan"))
		c.ip = fmt.Sprintf("203.0.113.%d", i+1)
		var id string
		if err := e.query(c, `SELECT public.start_play($1)::text`, []any{w.track}, &id); err != nil {
			t.Fatal(err)
		}
		plays[i] = play{c, id}
	}
	e.exec(`UPDATE public.play_sessions SET started_at = now() - interval '31 seconds' WHERE track_id = $1`, w.track)
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, 2*fans)
	for _, p := range plays {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- e.as(p.c, func(tx pgx.Tx) error {
				var valid bool
				if err := tx.QueryRow(e.ctx, `INSERT INTO public.streams (track_id, user_id, duration, is_valid)
					VALUES ($1, $2, 31, true) RETURNING is_valid`, w.track, p.c.uid).Scan(&valid); err != nil {
					return err
				}
				if !valid {
					return fmt.Errorf("stream of %s not valid", p.c.uid)
				}
				return nil
			})
			errs <- e.as(p.c, func(tx pgx.Tx) error {
				_, err := tx.Exec(e.ctx, `SELECT public.increment_track_streams($1), public.increment_artist_streams($2)`, w.track, w.artist)
				return err
			})
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := scalar[string](e, `SELECT (SELECT count(*) FROM public.streams WHERE track_id = $1 AND is_valid) || '/' ||
		(SELECT streams FROM public.tracks WHERE id = $1) || '/' ||
		(SELECT stream_count FROM public.artist_profiles WHERE id = $2)`, w.track, w.artist)
	if want := fmt.Sprintf("%d/%d/%d", fans, fans, fans); got != want {
		t.Errorf("valid streams / track counter / artist counter = %s, want %s", got, want)
	}
}

// TestAllowanceRPCs covers get_or_create_daily_stream_limit,
// has_remaining_streams and consume_stream.
func TestAllowanceRPCs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	fan := user(w.fan)

	var remaining int
	if err := e.query(fan, `SELECT streams_remaining FROM public.get_or_create_daily_stream_limit($1)`, []any{w.fan}, &remaining); err != nil || remaining != 100 {
		t.Fatalf("streams_remaining = %d, %v", remaining, err)
	}
	var has bool
	if err := e.query(fan, `SELECT public.has_remaining_streams($1)`, []any{w.fan}, &has); err != nil || !has {
		t.Fatalf("has_remaining_streams = %v, %v", has, err)
	}
	for _, q := range []string{
		`SELECT * FROM public.get_or_create_daily_stream_limit($1)`,
		`SELECT public.has_remaining_streams($1)`,
		`SELECT public.consume_stream($1)`,
	} {
		if _, err := e.try(user(w.fan2), q, w.fan); sqlState(err) != denied {
			t.Errorf("%s for another user: %v", q, err)
		}
		if _, err := e.try(anon, q, w.fan); sqlState(err) != denied {
			t.Errorf("%s as visitor: %v", q, err)
		}
	}

	used := func() int {
		return scalar[int](e, `SELECT streams_used FROM public.daily_stream_limits WHERE user_id = $1`, w.fan)
	}
	if err := e.query(fan, `SELECT public.start_play($1)::text`, []any{w.track}, new(string)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		var ok bool
		if err := e.query(fan, `SELECT public.consume_stream($1)`, []any{w.fan}, &ok); err != nil || !ok {
			t.Fatalf("consume_stream = %v, %v", ok, err)
		}
	}
	if u := used(); u != 1 {
		t.Errorf("one play consumed %d streams, want 1", u)
	}
	// The stream of that play does not consume again.
	e.exec(`UPDATE public.play_sessions SET started_at = now() - interval '31 seconds' WHERE user_id = $1`, w.fan)
	if valid, reason := e.insertStream(fan, w.track); !valid {
		t.Fatalf("stream: %s", reason)
	}
	if u := used(); u != 1 {
		t.Errorf("after the stream %d used, want 1", u)
	}
	// With nothing left, consume_stream says no and the stream does not count.
	e.exec(`UPDATE public.daily_stream_limits SET daily_limit = 1 WHERE user_id = $1`, w.fan)
	if err := e.query(fan, `SELECT public.start_play($1)::text`, []any{w.plainTrack}, new(string)); err != nil {
		t.Fatal(err)
	}
	var ok bool
	if err := e.query(fan, `SELECT public.consume_stream($1)`, []any{w.fan}, &ok); err != nil || ok {
		t.Errorf("consume_stream with none left = %v, %v", ok, err)
	}
	if err := e.query(fan, `SELECT public.has_remaining_streams($1)`, []any{w.fan}, &has); err != nil || has {
		t.Errorf("has_remaining_streams with none left = %v, %v", has, err)
	}
}

// TestFraudAndDevices covers update_device_fingerprint (the server's trust
// score), detect_stream_fraud outcomes and the streams they block.
func TestFraudAndDevices(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120 Safari/537.36"
	good := `{"hardwareConcurrency": 8, "cookiesEnabled": true}`
	scores := []struct {
		name, ua, screen, details string
		want                      int
	}{
		{"a normal browser", chrome, "1920x1080", good, 100},
		{"headless", "HeadlessChrome/120", "1920x1080", good, 50},
		{"cookies disabled", chrome, "1920x1080", `{"hardwareConcurrency": 8, "cookiesEnabled": false}`, 80},
		{"invalid screen resolution", chrome, "0x0", good, 70},
		{"no hardware concurrency", chrome, "1366x768", `{"cookiesEnabled": true}`, 85},
		{"webdriver", chrome, "1920x1080", `{"hardwareConcurrency": 8, "webdriver": true}`, 60},
		{"automation framework", chrome + " Puppeteer", "1920x1080", good, 55},
		{"everything wrong clamps at 0", "HeadlessChrome Selenium", "", `{"webdriver": true, "cookiesEnabled": false}`, 0},
	}
	for i, tc := range scores {
		var res map[string]any
		raw := ""
		err := e.query(user(w.fan), `SELECT public.update_device_fingerprint($1, $2, $3, $4, 'Africa/Lagos', 'en-NG', 'Linux', '6.6.6.6', $5)::text`,
			[]any{w.fan, fmt.Sprintf("fp-%d", i), tc.ua, tc.screen, tc.details}, &raw)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		_ = json.Unmarshal([]byte(raw), &res)
		if got := int(res["device_trust_score"].(float64)); got != tc.want {
			t.Errorf("%s: trust %d, want %d", tc.name, got, tc.want)
		}
		if got := res["is_suspicious"].(bool); got != (tc.want < 60) {
			t.Errorf("%s: is_suspicious %v", tc.name, got)
		}
	}
	if ip := scalar[string](e, `SELECT ip_address FROM public.device_fingerprints WHERE user_id = $1 LIMIT 1`, w.fan); ip != "198.51.100.7" {
		t.Errorf("device IP = %s, want the gateway's", ip)
	}
	if _, err := e.try(user(w.fan2), `SELECT public.update_device_fingerprint($1, 'x')`, w.fan); sqlState(err) != denied {
		t.Errorf("fingerprint for another user: %v", err)
	}

	detect := func(c caller, fp string) map[string]any {
		t.Helper()
		var raw string
		if err := e.query(c, `SELECT public.detect_stream_fraud($1, $2, $3, '1.1.1.1', $4, 'sess')::text`,
			[]any{c.uid, w.track, fp, chrome}, &raw); err != nil {
			t.Fatal(err)
		}
		var res map[string]any
		if err := json.Unmarshal([]byte(raw), &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	register := func(c caller, fp, ua, details string) {
		t.Helper()
		if _, err := e.execAs(c, `SELECT public.update_device_fingerprint($1, $2, $3, '1920x1080', NULL, NULL, NULL, NULL, $4)`,
			c.uid, fp, ua, details); err != nil {
			t.Fatal(err)
		}
	}
	outcome := func(r map[string]any) string {
		return fmt.Sprintf("%v/%v/%v", r["risk_level"], r["recommendation"], r["fraud_detected"])
	}

	clean := user(e.signUp("fan"))
	register(clean, "clean-device", chrome, good)
	if got := outcome(detect(clean, "clean-device")); got != "low/allow/false" {
		t.Errorf("clean device: %s", got)
	}
	suspicious := user(e.signUp("fan"))
	register(suspicious, "odd-device", "HeadlessChrome", good)
	r := detect(suspicious, "odd-device")
	if got := outcome(r); got != "medium/allow/false" || r["device_trust_score"].(float64) != 50 {
		t.Errorf("suspicious device: %s %v", got, r)
	}
	// A suspicious device shared by 5 accounts is high risk: throttled.
	for i := 0; i < 4; i++ {
		register(user(e.signUp("fan")), "odd-device", "HeadlessChrome", good)
	}
	r = detect(suspicious, "odd-device")
	if got := outcome(r); got != "high/throttle/true" || !strings.Contains(fmt.Sprint(r["fraud_reasons"]), "Device shared by 5 accounts") {
		t.Errorf("shared suspicious device: %s %v", got, r)
	}
	bot := user(e.signUp("fan"))
	register(bot, "bot-device", "HeadlessChrome", `{"webdriver": true}`)
	r = detect(bot, "bot-device")
	if got := outcome(r); got != "critical/block/true" {
		t.Errorf("bot: %s %v", got, r)
	}
	// The critical device's streams do not count.
	valid, reason := e.listen(bot, w.plainTrack, 31)
	if valid || !strings.HasPrefix(reason, "Stream blocked due to critical fraud risk: Automated or headless device") {
		t.Errorf("bot stream: valid=%v %q", valid, reason)
	}
	// A high-risk (throttled) listener still streams validly.
	if valid, reason := e.listen(suspicious, w.plainTrack, 31); !valid {
		t.Errorf("high-risk stream: %s", reason)
	}
	// Many accounts on one address, and a user past the hourly velocity.
	crowd := user(e.signUp("fan"))
	crowd.ip = "192.0.2.250"
	register(crowd, "crowd-device", chrome, good)
	e.exec(`INSERT INTO public.streams (track_id, user_id, is_valid, ip_address, created_at)
		SELECT $1, u.id, true, backline.ip_key('192.0.2.250'), now() - interval '2 hours'
		FROM (SELECT id FROM auth.users LIMIT 10) u`, w.plainTrack)
	r = detect(crowd, "crowd-device")
	if got := outcome(r); got != "medium/allow/false" || !strings.Contains(fmt.Sprint(r["fraud_reasons"]), "10 accounts streaming from this IP in 24 hours") || r["ip_risk_score"].(float64) != 80 {
		t.Errorf("crowded address: %s %v", got, r)
	}
	e.exec(`INSERT INTO public.streams (track_id, user_id, is_valid, ip_address, created_at)
		SELECT $1, $2, true, 'elsewhere', now() - interval '10 minutes' FROM generate_series(1, 25)`, w.plainTrack, crowd.uid)
	r = detect(crowd, "crowd-device")
	if got := outcome(r); got != "high/throttle/true" || !strings.Contains(fmt.Sprint(r["fraud_reasons"]), "Velocity limit exceeded: 25 streams in last hour") {
		t.Errorf("crowded address and fast listener: %s %v", got, r)
	}

	// A user agent naming a headless browser blocks even a clean device.
	var raw string
	if err := e.query(clean, `SELECT public.detect_stream_fraud($1, $2, 'clean-device', NULL, 'HeadlessChrome/120', NULL)::text`,
		[]any{clean.uid, w.track}, &raw); err != nil || !strings.Contains(raw, `"recommendation": "block"`) || !strings.Contains(raw, "Automated or headless browser") {
		t.Errorf("headless user agent: %s %v", raw, err)
	}
	// The address is the gateway's, never the argument.
	noIP := caller{uid: clean.uid}
	if r := detect(noIP, "clean-device"); !strings.Contains(fmt.Sprint(r["fraud_reasons"]), "IP address unknown") {
		t.Errorf("p_ip_address was trusted: %v", r)
	}
	if _, err := e.try(user(w.fan2), `SELECT public.detect_stream_fraud($1, $2, 'x', NULL, NULL, NULL)`, clean.uid, w.track); sqlState(err) != denied {
		t.Errorf("fraud check for another user: %v", err)
	}
}

func TestDuplicateRPCs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	fan := user(w.fan)
	check := func() map[string]any {
		t.Helper()
		var raw string
		if err := e.query(fan, `SELECT public.check_duplicate_stream_enhanced($1, $2)::text`, []any{w.track, w.fan}, &raw); err != nil {
			t.Fatal(err)
		}
		var res map[string]any
		_ = json.Unmarshal([]byte(raw), &res)
		return res
	}
	if r := check(); r["is_duplicate"] != false || r["allowance_type"] != "ip" {
		t.Errorf("fresh: %v", r)
	}
	for i := 0; i < 3; i++ {
		e.listen(user(e.signUp("fan")), w.track, 31)
	}
	r := check()
	if r["is_duplicate"] != true || r["message"] != "This track has been streamed 3 times from your location in 24 hours (max: 3)" {
		t.Errorf("after 3: %v", r)
	}

	var raw string
	if err := e.query(fan, `SELECT public.record_stream_for_duplicate_prevention($1, $2, 'fp-1', '6.6.6.6', 'sess-1', 31)::text`,
		[]any{w.fan, w.track}, &raw); err != nil {
		t.Fatal(err)
	}
	if got := scalar[string](e, `SELECT ip_address || ' ' || device_fingerprint || ' ' || stream_duration FROM public.stream_records WHERE user_id = $1`, w.fan); got != "198.51.100.7 fp-1 31" {
		t.Errorf("record = %q", got)
	}
	if _, err := e.try(user(w.fan2), `SELECT public.record_stream_for_duplicate_prevention($1, $2)`, w.fan, w.track); sqlState(err) != denied {
		t.Errorf("record for another user: %v", err)
	}
}

func TestSessionsSettingsAndStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	fan := user(w.fan)

	if _, err := e.execAs(fan, `SELECT public.upsert_user_session($1, 'device-1', 'Mozilla/5.0', NULL)`, w.fan); err != nil {
		t.Fatal(err)
	}
	if _, err := e.execAs(fan, `SELECT public.upsert_user_session($1, 'device-1', 'Mozilla/5.0', '9.9.9.9')`, w.fan); err != nil {
		t.Fatal(err)
	}
	if got := scalar[string](e, `SELECT count(*) || ' ' || max(ip_address) FROM public.user_sessions WHERE user_id = $1`, w.fan); got != "1 198.51.100.7" {
		t.Errorf("sessions = %q", got)
	}
	if _, err := e.try(fan, `SELECT public.upsert_user_session($1, 'x', NULL, NULL)`, w.fan2); sqlState(err) != denied {
		t.Errorf("session for another user: %v", err)
	}
	online := func(c caller) (int64, error) {
		return e.try(c, `SELECT user_id FROM public.get_online_users()`)
	}
	if n, err := online(user(w.fan2)); err != nil || n != 1 {
		t.Errorf("online users = %d, %v", n, err)
	}
	if _, err := online(anon); sqlState(err) != denied {
		t.Errorf("visitor sees online users: %v", err)
	}
	e.exec(`UPDATE public.user_sessions SET last_seen = now() - interval '10 minutes'`)
	if n, _ := online(user(w.fan2)); n != 0 {
		t.Errorf("stale session still online")
	}
	if _, err := e.execAs(fan, `SELECT public.remove_user_session('device-1')`); err != nil {
		t.Fatal(err)
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.user_sessions`); n != 0 {
		t.Errorf("session not removed")
	}

	// Settings for the coming-soon gate, as a visitor.
	var on bool
	var date string
	if err := e.query(anon, `SELECT public.get_app_setting('coming_soon_enabled'), public.get_app_text_setting('countdown_target_date')`, nil, &on, &date); err != nil || on || date != "" {
		t.Errorf("settings = %v %q %v", on, date, err)
	}
	if _, err := e.execAs(user(w.admin), `UPDATE public.app_settings SET value = 'true' WHERE key = 'coming_soon_enabled'`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.execAs(user(w.admin), `UPDATE public.app_settings SET value = '"2027-01-01T00:00:00Z"' WHERE key = 'countdown_target_date'`); err != nil {
		t.Fatal(err)
	}
	if err := e.query(anon, `SELECT public.get_app_setting('coming_soon_enabled'), public.get_app_text_setting('countdown_target_date')`, nil, &on, &date); err != nil || !on || date != "2027-01-01T00:00:00Z" {
		t.Errorf("settings = %v %q %v", on, date, err)
	}
	if err := e.query(anon, `SELECT public.get_app_text_setting('online_window_seconds')`, nil, &date); err != nil || date != "" {
		t.Errorf("private setting leaked to a visitor: %q %v", date, err)
	}

	// Home-page figures, as a visitor.
	e.fund(w.sponsor, 500)
	for i := 0; i < 2; i++ {
		e.listen(e.freshFan(), w.track, 31)
	}
	fanB := e.freshFan()
	e.listen(fanB, w.plainTrack, 31)
	stats, err := e.callJSON(anon, `SELECT public.get_platform_stats()::text`)
	wantStats := map[string]any{"total_users": 10.0, "fans": 5.0, "artists": 2.0, "sponsors": 2.0, "admins": 1.0,
		"total_tracks": 2.0, "total_streams": 3.0, "sponsored_streams": 2.0, "total_wallet_balance": 500.0,
		"total_sponsor_payments": 0.0, "total_paid_out": 0.0}
	if diff := cmp.Diff(wantStats, stats); err != nil || diff != "" {
		t.Errorf("stats (-want +got):\n%s %v", diff, err)
	}
	e.listen(fanB, w.track, 31)
	var top []string
	if err := e.as(anon, func(tx pgx.Tx) error {
		rows, err := tx.Query(e.ctx, `SELECT user_id::text || ':' || stream_count FROM public.get_top_fans(8)`)
		if err != nil {
			return err
		}
		top, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	}); err != nil || len(top) != 3 || top[0] != fanB.uid+":2" {
		t.Errorf("top fans = %v %v", top, err)
	}

	// An admin's role change reaches both places the app reads it from.
	if _, err := e.execAs(user(w.admin), `UPDATE public.user_roles SET role = 'artist' WHERE user_id = $1`, w.fan2); err != nil {
		t.Fatal(err)
	}
	if r := scalar[string](e, `SELECT role::text FROM public.public_profiles WHERE id = $1`, w.fan2); r != "artist" {
		t.Errorf("profile role after admin change = %s", r)
	}
	if _, err := e.execAs(user(w.admin), `UPDATE public.public_profiles SET role = 'sponsor' WHERE id = $1`, w.fan2); err != nil {
		t.Fatal(err)
	}
	if r := scalar[string](e, `SELECT role::text FROM public.user_roles WHERE user_id = $1`, w.fan2); r != "sponsor" {
		t.Errorf("user_roles after profile change = %s", r)
	}

	// Suspension and sponsorship checks.
	e.exec(`UPDATE public.public_profiles SET is_suspended = true WHERE id = $1`, w.fan2)
	var s1, s2 bool
	if err := e.query(fan, `SELECT public.is_user_suspended($1), public.is_user_suspended($2)`, []any{w.fan, w.fan2}, &s1, &s2); err != nil || s1 || !s2 {
		t.Errorf("is_user_suspended = %v %v %v", s1, s2, err)
	}
	var a, b bool
	if err := e.query(fan, `SELECT public.check_active_sponsorship($1, $2), public.check_active_sponsorship($1, $3)`,
		[]any{w.artist, w.sponsor, w.sponsor2}, &a, &b); err != nil || !a || b {
		t.Errorf("check_active_sponsorship = %v %v %v", a, b, err)
	}

	// A lapsed verification stops counting at the next heartbeat.
	e.exec(`UPDATE public.public_profiles SET is_verified = true, verification_expires_at = now() - interval '1 day' WHERE id = $1`, w.artist)
	if _, err := e.execAs(fan, `SELECT public.upsert_user_session($1, 'device-2', NULL, NULL)`, w.fan); err != nil {
		t.Fatal(err)
	}
	if v := scalar[bool](e, `SELECT is_verified FROM public.public_profiles WHERE id = $1`, w.artist); v {
		t.Error("expired verification still set")
	}
}
