package app_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// startPlay starts a play of the track as c, its start moved back by age
// seconds (the server's clock is what counts), and returns the play's id.
func (e *env) startPlay(c caller, trackID string, age int) string {
	e.t.Helper()
	var play string
	if err := e.query(c, `SELECT public.start_play($1)::text`, []any{trackID}, &play); err != nil {
		e.t.Fatalf("start_play: %v", err)
	}
	e.exec(`UPDATE public.play_sessions SET started_at = now() - make_interval(secs => $2) WHERE id = $1`, play, age)
	return play
}

// finish is the player's call at 30 s.
func (e *env) finish(c caller, play string) (map[string]any, error) {
	return e.callJSON(c, `SELECT public.finish_play($1, 31)::text`, play)
}

func (e *env) mustFinish(c caller, play string) map[string]any {
	e.t.Helper()
	m, err := e.finish(c, play)
	if err != nil {
		e.t.Fatalf("finish_play: %v", err)
	}
	return m
}

// outcomeOf is the part of finish_play's answer a test compares.
func outcomeOf(m map[string]any) map[string]any {
	return map[string]any{"outcome": m["outcome"], "reason": m["reason"], "transaction": m["transaction"]}
}

var paidToFan = map[string]any{"amount": 50.0, "artist_balance": nil, "sponsor_balance": nil}

// TestFinishPlay: one call records the stream, decides the payment in the
// spec's order and pays through the ledger; the outcome says which.
func TestFinishPlay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.sponsor, 1000)
	counters := func() string {
		return scalar[string](e, `SELECT (SELECT streams FROM public.tracks WHERE id = $1) || '/' ||
			(SELECT streams FROM public.tracks WHERE id = $2) || '/' || (SELECT stream_count FROM public.artist_profiles WHERE id = $3)`,
			w.track, w.plainTrack, w.artist)
	}

	t.Run("an unsponsored track is counted", func(t *testing.T) {
		fan := e.freshFan()
		play := e.startPlay(fan, w.plainTrack, 31)
		got := e.mustFinish(fan, play)
		want := map[string]any{"outcome": "counted", "reason": nil, "transaction": nil}
		if diff := cmp.Diff(want, outcomeOf(got)); diff != "" {
			t.Errorf("outcome (-want +got):\n%s", diff)
		}
		if got["play_id"] != play || got["track_id"] != w.plainTrack || got["sponsored"] != false || got["stream_id"] == nil {
			t.Errorf("answer = %v", got)
		}
		row := scalar[string](e, `SELECT user_id || ' ' || is_valid || ' ' || duration || ' ' || play_session_id FROM public.streams WHERE id = $1`, got["stream_id"])
		if want := fan.uid + " true 31 " + play; row != want {
			t.Errorf("stream = %q, want %q", row, want)
		}
	})

	t.Run("a sponsored track is paid ₦50 once, however often the play is finished", func(t *testing.T) {
		before := counters()
		fan := e.freshFan()
		play := e.startPlay(fan, w.track, 31)
		want := map[string]any{"outcome": "paid", "reason": nil, "transaction": paidToFan}
		for i := 0; i < 3; i++ {
			if diff := cmp.Diff(want, outcomeOf(e.mustFinish(fan, play))); diff != "" {
				t.Errorf("finish %d (-want +got):\n%s", i+1, diff)
			}
		}
		if e.balance(w.sponsor) != "950.00" || e.balance(w.artist) != "50.00" {
			t.Errorf("after one paid stream: sponsor %s, artist %s", e.balance(w.sponsor), e.balance(w.artist))
		}
		if n := scalar[int64](e, `SELECT count(*) FROM public.streams WHERE user_id = $1`, fan.uid); n != 1 {
			t.Errorf("%d streams recorded, want 1", n)
		}
		var a, b, c int
		if _, err := fmt.Sscanf(before, "%d/%d/%d", &a, &b, &c); err != nil {
			t.Fatalf("counters %q: %v", before, err)
		}
		if got, want := counters(), fmt.Sprintf("%d/%d/%d", a+1, b, c+1); got != want {
			t.Errorf("counters = %s, want %s", got, want)
		}
		// The spec's transfer-payment runs the same rules: the stream is paid.
		if got := e.settle(fan, w.artist, w.sponsor, "stream-again-"+fan.uid, 50); got["error"] != "Track not found" {
			t.Errorf("transfer-payment after finish_play: %v", got)
		}
		// The sponsor and the artist read what the settlement did.
		if ref := scalar[string](e, `SELECT reference FROM public.transactions WHERE stream_id = (SELECT id FROM public.streams WHERE user_id = $1)`, fan.uid); ref != "stream-"+play {
			t.Errorf("ledger reference %q", ref)
		}
		e.conserved()
	})

	t.Run("a stream paid through transfer-payment is not paid again", func(t *testing.T) {
		fan := e.freshFan()
		play := e.startPlay(fan, w.track, 31)
		if valid, reason := e.insertStream(fan, w.track); !valid {
			t.Fatal(reason)
		}
		if got := e.settle(fan, w.artist, w.sponsor, "stream-client-"+fan.uid, 50); got["success"] != true {
			t.Fatalf("transfer-payment: %v", got)
		}
		sponsor := e.balance(w.sponsor)
		want := map[string]any{"outcome": "paid", "reason": nil, "transaction": paidToFan}
		if diff := cmp.Diff(want, outcomeOf(e.mustFinish(fan, play))); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if e.balance(w.sponsor) != sponsor {
			t.Errorf("the sponsor paid twice: %s, then %s", sponsor, e.balance(w.sponsor))
		}
	})

	t.Run("not counted, with the server's reason", func(t *testing.T) {
		cases := []struct {
			name string
			who  caller
			age  int
			want string
		}{
			{"too short", e.freshFan(), 12, "Stream not valid (listened 12 s, minimum 30 s)"},
			{"a sponsor", user(w.sponsor2), 40, "Stream not valid (not from fan or self-streaming)"},
			{"the artist", user(w.artist), 40, "Stream not valid (not from fan or self-streaming)"},
			{"an admin", user(w.admin), 40, "Stream not valid (not from fan or self-streaming)"},
		}
		for _, tc := range cases {
			sponsor := e.balance(w.sponsor)
			play := e.startPlay(tc.who, w.track, tc.age)
			want := map[string]any{"outcome": "not_counted", "reason": tc.want, "transaction": nil}
			if diff := cmp.Diff(want, outcomeOf(e.mustFinish(tc.who, play))); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.name, diff)
			}
			if e.balance(w.sponsor) != sponsor {
				t.Errorf("%s: money moved", tc.name)
			}
		}
	})

	t.Run("a play closed by the next one records a stream that does not count", func(t *testing.T) {
		fan := e.freshFan()
		first := e.startPlay(fan, w.plainTrack, 40)
		second := e.startPlay(fan, w.plainTrack, 40)
		want := map[string]any{"outcome": "not_counted", "reason": "Stream not valid (no play of this track was started)", "transaction": nil}
		if diff := cmp.Diff(want, outcomeOf(e.mustFinish(fan, first))); diff != "" {
			t.Errorf("first play (-want +got):\n%s", diff)
		}
		if got := e.mustFinish(fan, second); got["outcome"] != "counted" {
			t.Errorf("second play: %v", got)
		}
	})

	t.Run("not eligible: the reason in the spec's words, the figures only for the sponsor", func(t *testing.T) {
		e2 := newEnv(t)
		w2 := e2.newWorld()
		e2.fund(w2.sponsor, 20)
		fan := e2.freshFan()
		want := map[string]any{"outcome": "not_eligible", "reason": "Insufficient sponsor balance", "transaction": nil}
		if diff := cmp.Diff(want, outcomeOf(e2.mustFinish(fan, e2.startPlay(fan, w2.track, 31)))); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if got := scalar[string](e2, `SELECT result ->> 'error' FROM public.stream_settlements WHERE user_id = $1`, fan.uid); got != "Insufficient sponsor balance. Has 20, needs 50" {
			t.Errorf("the settlement record says %q", got)
		}
		// Counted all the same.
		if n := scalar[int64](e2, `SELECT streams FROM public.tracks WHERE id = $1`, w2.track); n != 1 {
			t.Errorf("track streams = %d, want 1", n)
		}
		// A suspended artist's track is checked before the balance (spec order).
		e2.exec(`UPDATE public.public_profiles SET is_suspended = true WHERE id = $1`, w2.artist)
		fan2 := e2.freshFan()
		want["reason"] = "Artist is suspended"
		if diff := cmp.Diff(want, outcomeOf(e2.mustFinish(fan2, e2.startPlay(fan2, w2.track, 31)))); diff != "" {
			t.Errorf("suspended artist (-want +got):\n%s", diff)
		}
	})

	t.Run("a payment that fails is announced as failed and moves nothing", func(t *testing.T) {
		e2 := newEnv(t)
		w2 := e2.newWorld()
		e2.fund(w2.sponsor, 1000)
		e2.exec(`CREATE FUNCTION public.test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'ledger offline'; END $$`)
		e2.exec(`CREATE TRIGGER test_refuse BEFORE INSERT ON public.transactions FOR EACH ROW EXECUTE FUNCTION public.test_refuse()`)
		fan := e2.freshFan()
		want := map[string]any{"outcome": "payment_failed", "reason": "Payment could not be processed", "transaction": nil}
		if diff := cmp.Diff(want, outcomeOf(e2.mustFinish(fan, e2.startPlay(fan, w2.track, 31)))); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if e2.balance(w2.sponsor) != "1000.00" || e2.balance(w2.artist) != "0.00" {
			t.Errorf("money moved: sponsor %s, artist %s", e2.balance(w2.sponsor), e2.balance(w2.artist))
		}
		if n := scalar[int64](e2, `SELECT count(*) FROM public.streams WHERE user_id = $1 AND is_valid`, fan.uid); n != 1 {
			t.Errorf("valid streams = %d, want 1", n)
		}
	})

	t.Run("the allowance runs out during a play: limit reached", func(t *testing.T) {
		fan := e.freshFan()
		play := e.startPlay(fan, w.plainTrack, 31)
		e.exec(`UPDATE public.daily_stream_limits SET daily_limit = 0 WHERE user_id = $1`, fan.uid)
		want := map[string]any{"outcome": "limit_reached", "reason": "Daily stream limit reached!", "transaction": nil}
		if diff := cmp.Diff(want, outcomeOf(e.mustFinish(fan, play))); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("the device sent with start_play is what the fraud check knows", func(t *testing.T) {
		fan := e.freshFan()
		var play string
		if err := e.query(fan, `SELECT public.start_play($1, '{"fingerprint": "bot-1", "user_agent": "HeadlessChrome/120",
			"screen_resolution": "1920x1080", "details": {"webdriver": true, "hardwareConcurrency": 4}}')::text`, []any{w.plainTrack}, &play); err != nil {
			t.Fatal(err)
		}
		if got := scalar[string](e, `SELECT trust_score || ' ' || ip_address FROM public.device_fingerprints WHERE user_id = $1`, fan.uid); got != "10 "+fan.ip {
			t.Errorf("recorded device = %q", got)
		}
		e.exec(`UPDATE public.play_sessions SET started_at = now() - interval '31 seconds' WHERE id = $1`, play)
		got := e.mustFinish(fan, play)
		if got["outcome"] != "not_counted" || !strings.HasPrefix(fmt.Sprint(got["reason"]), "Stream blocked due to critical fraud risk: Automated or headless device (trust score 10)") {
			t.Errorf("a headless device's play: %v", got)
		}
	})
}

// TestFinishPlayRefusals: a play is finished by its listener alone; nobody
// else records or is paid for it.
func TestFinishPlayRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.sponsor, 1000)
	fan := e.freshFan()
	play := e.startPlay(fan, w.track, 31)

	for _, tc := range []struct {
		name  string
		who   caller
		state string
		msg   string
	}{
		{"another fan", user(w.fan2), "P0002", "Play not found"},
		{"the track's artist", user(w.artist), "P0002", "Play not found"},
		{"the sponsor", user(w.sponsor), "P0002", "Play not found"},
		{"an admin", user(w.admin), "P0002", "Play not found"},
		{"a visitor", anon, denied, ""},
	} {
		_, err := e.try(tc.who, `SELECT public.finish_play($1)`, play)
		if sqlState(err) != tc.state || (tc.msg != "" && sqlMessage(err) != tc.msg) {
			t.Errorf("%s: %v, want %s %q", tc.name, err, tc.state, tc.msg)
		}
	}
	if _, err := e.serviceJSON(`SELECT public.finish_play($1)::text`, play); sqlState(err) != denied {
		t.Errorf("service role: %v, want %s", err, denied)
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.streams`); n != 0 {
		t.Errorf("%d streams recorded by others", n)
	}
	// A suspended listener's play is neither recorded nor paid.
	e.exec(`UPDATE public.public_profiles SET is_suspended = true WHERE id = $1`, fan.uid)
	if _, err := e.try(fan, `SELECT public.finish_play($1)`, play); sqlMessage(err) != "User is suspended and cannot generate valid streams" {
		t.Errorf("suspended: %v", err)
	}
	e.exec(`UPDATE public.public_profiles SET is_suspended = false WHERE id = $1`, fan.uid)
	if got := e.mustFinish(fan, play); got["outcome"] != "paid" {
		t.Errorf("the listener: %v", got)
	}
	if e.balance(w.sponsor) != "950.00" {
		t.Errorf("sponsor = %s, want 950.00", e.balance(w.sponsor))
	}
}

// TestFinishPlayConcurrent: the same play finished from two tabs at once is
// recorded and paid once, and both get the same answer.
func TestFinishPlayConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.sponsor, 1000)
	for round := 0; round < 5; round++ {
		fan := e.freshFan()
		play := e.startPlay(fan, w.track, 31)
		const calls = 4
		answers := make([]map[string]any, calls)
		errs := make([]error, calls)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				answers[i], errs[i] = e.finish(fan, play)
			}()
		}
		close(start)
		wg.Wait()
		for i := range calls {
			if errs[i] != nil {
				t.Fatalf("call %d: %v", i, errs[i])
			}
			if diff := cmp.Diff(answers[0], answers[i]); diff != "" || answers[i]["outcome"] != "paid" {
				t.Errorf("round %d call %d (-first +this):\n%s", round, i, diff)
			}
		}
	}
	if e.balance(w.sponsor) != "750.00" || e.balance(w.artist) != "250.00" {
		t.Errorf("after five plays: sponsor %s, artist %s", e.balance(w.sponsor), e.balance(w.artist))
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.streams`); n != 5 {
		t.Errorf("%d streams, want 5", n)
	}
	e.conserved()
}
