package app_test

import (
	"testing"
)

// TestRecordListen: a play keeps how long it was listened to, as the player
// reports it, never more than the server's clock and the track allow, and
// only for its own listener; the fan's history carries it with the cover.
func TestRecordListen(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.exec(`UPDATE public.tracks SET cover_url = '/storage/v1/object/public/covers/plain.webp' WHERE id = $1`, w.plainTrack)
	fan := e.freshFan()
	report := func(c caller, play string, seconds int) (int, error) {
		var kept int
		err := e.query(c, `SELECT public.record_listen($1, $2)`, []any{play, seconds}, &kept)
		return kept, err
	}
	mustReport := func(play string, seconds int) int {
		t.Helper()
		kept, err := report(fan, play, seconds)
		if err != nil {
			t.Fatalf("record_listen(%d): %v", seconds, err)
		}
		return kept
	}
	listened := func(play string) *int64 {
		return scalar[*int64](e, `SELECT listened_seconds::bigint FROM public.play_sessions WHERE id = $1`, play)
	}

	// A 42-s listen of the plain track (200 s long), begun 50 s ago.
	play := e.startPlay(fan, w.plainTrack, 50)
	if got := e.mustFinish(fan, play); got["outcome"] != "counted" {
		t.Fatalf("finish_play: %v", got)
	}
	if l := listened(play); l != nil {
		t.Fatalf("listened before any report = %d, want NULL", *l)
	}
	if kept := mustReport(play, 42); kept != 42 {
		t.Errorf("42 s reported, %d kept", kept)
	}
	// A shorter report (a late, stale one) keeps the longest.
	if kept := mustReport(play, 35); kept != 42 {
		t.Errorf("after a shorter report: %d kept, want 42", kept)
	}

	t.Run("the history carries the whole listen and the cover", func(t *testing.T) {
		d, err := e.callJSON(fan, `SELECT public.get_fan_dashboard()::text`)
		if err != nil {
			t.Fatal(err)
		}
		h := d["history"].([]any)
		if len(h) != 1 {
			t.Fatalf("history %v", h)
		}
		row := h[0].(map[string]any)
		if row["listened"] != 42.0 || row["duration"] != 31.0 || row["cover_url"] != "/storage/v1/object/public/covers/plain.webp" {
			t.Errorf("history row %v", row)
		}
		// The first screen wraps the same dashboard.
		fs := e.mustJSON(fan, `SELECT public.get_fan_first_screen()::text`)
		if got := fs["dashboard"].(map[string]any)["history"].([]any)[0].(map[string]any)["listened"]; got != 42.0 {
			t.Errorf("first screen's history listened = %v", got)
		}
	})

	t.Run("a play never reported shows the stream's recorded listening", func(t *testing.T) {
		other := e.freshFan()
		p := e.startPlay(other, w.plainTrack, 40)
		e.mustFinish(other, p)
		d, err := e.callJSON(other, `SELECT public.get_fan_dashboard()::text`)
		if err != nil {
			t.Fatal(err)
		}
		if row := d["history"].([]any)[0].(map[string]any); row["listened"] != 31.0 || row["cover_url"] == nil {
			t.Errorf("history row %v", row)
		}
	})

	t.Run("the server's clock caps a report", func(t *testing.T) {
		// 50 s since the start, plus 2 s of grace.
		if kept := mustReport(play, 600); kept != 52 {
			t.Errorf("600 s claimed 50 s after the start: %d kept, want 52", kept)
		}
	})

	t.Run("the track's length caps a report", func(t *testing.T) {
		p := e.startPlay(fan, w.plainTrack, 3600)
		if kept := mustReport(p, 3000); kept != 200 {
			t.Errorf("3000 s of a 200-s track: %d kept, want 200", kept)
		}
	})

	t.Run("only the play's listener reports it", func(t *testing.T) {
		before := listened(play)
		for name, c := range map[string]caller{"another fan": user(w.fan2), "the artist": user(w.artist), "an admin": user(w.admin)} {
			if _, err := report(c, play, 45); sqlState(err) != "P0002" || sqlMessage(err) != "Play not found" {
				t.Errorf("%s: %v", name, err)
			}
		}
		if _, err := report(anon, play, 45); err == nil {
			t.Error("a visitor reported a listen")
		}
		if _, err := report(fan, "00000000-0000-4000-8000-000000000000", 45); sqlState(err) != "P0002" {
			t.Errorf("unknown play: %v", err)
		}
		// Nor may anyone write the column directly.
		if n, err := e.try(fan, `UPDATE public.play_sessions SET listened_seconds = 999 WHERE id = $1`, play); n != 0 && err == nil {
			t.Errorf("direct update changed %d rows", n)
		}
		if after := listened(play); after == nil || *after != *before {
			t.Errorf("listened changed from %v to %v", *before, after)
		}
	})

	t.Run("a negative or missing figure is refused", func(t *testing.T) {
		if _, err := report(fan, play, -1); sqlState(err) != "22023" {
			t.Errorf("-1 s: %v", err)
		}
		if _, err := e.try(fan, `SELECT public.record_listen($1, NULL)`, play); sqlState(err) != "22023" {
			t.Errorf("NULL: %v", err)
		}
	})
}

// TestActivityPaymentFigures: the activity feed's payment entries carry what
// the payment charged (amount, VAT, fee and total), not only its base amount.
func TestActivityPaymentFigures(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	checkout := e.mustJSON(user(w.sponsor), `SELECT public.create_payment('sandbox', 'verification')::text`)
	topup := e.mustJSON(user(w.sponsor2), `SELECT public.create_payment('flutterwave', 'topup', 10000)::text`)
	if _, err := e.serviceJSON(`SELECT public.complete_payment('flutterwave', $1, $2, 10750 + 1000, 'successful', '{}')::text`, topup["tx_ref"], w.sponsor2); err != nil {
		t.Fatalf("complete_payment: %v", err)
	}

	rows := e.mustRows(user(w.admin), `SELECT * FROM public.admin_activity('payment')`)
	got := map[string]map[string]any{}
	for _, r := range rows {
		got[r["action"].(string)+" "+r["subject_id"].(string)] = r["details"].(map[string]any)
	}
	check := func(key string, want map[string]float64) {
		t.Helper()
		d, ok := got[key]
		if !ok {
			t.Errorf("no entry %s in %v", key, got)
			return
		}
		for k, v := range want {
			if d[k] != v {
				t.Errorf("%s: %s = %v, want %v (%v)", key, k, d[k], v, d)
			}
		}
	}
	check("payment.created "+checkout["tx_ref"].(string), map[string]float64{"amount": 60000, "vat": 4500, "fee": 1000, "total": 65500})
	check("payment.created "+topup["tx_ref"].(string), map[string]float64{"amount": 10000, "vat": 750, "fee": 1000, "total": 11750})
	check("payment.completed "+topup["tx_ref"].(string), map[string]float64{"amount": 10000, "vat": 750, "fee": 1000, "total": 11750})
}
