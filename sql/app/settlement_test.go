package app_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// streamAs records a valid stream of the track for uid the way an import
// does (as the owner): sponsors and admins cannot make one through the app,
// but settle_sponsored_stream must still answer them by who they are.
func (e *env) streamAs(uid, track string) {
	e.t.Helper()
	e.exec(`INSERT INTO public.streams (track_id, user_id, duration, is_valid, created_at) VALUES ($1, $2, 31, true, now())`,
		track, uid)
}

// TestSettlementBalanceFigures: the sponsor's balance is the sponsor's own
// data. Only the sponsor and admins read the spec's message with the
// figures; a fan (or another sponsor) gets the reason without them, also
// when the stored result of a repeated reference is returned.
func TestSettlementBalanceFigures(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.sponsor, 20)
	const full, redacted = "Insufficient sponsor balance. Has 20, needs 50", "Insufficient sponsor balance"
	fail := func(msg string) map[string]any {
		return map[string]any{"success": false, "error": msg, "transaction": nil}
	}

	fan := e.freshFan()
	if valid, reason := e.listen(fan, w.track, 31); !valid {
		t.Fatal(reason)
	}
	e.streamAs(w.sponsor, w.track)
	e.streamAs(w.sponsor2, w.track)
	e.streamAs(w.admin, w.track)
	cases := []struct {
		name string
		who  caller
		want string
	}{
		{"fan", fan, redacted},
		{"the sponsor", user(w.sponsor), full},
		{"another sponsor", user(w.sponsor2), redacted},
		{"admin", user(w.admin), full},
	}
	for i, tc := range cases {
		ref := fmt.Sprintf("stream-figures-%d", i)
		if diff := cmp.Diff(fail(tc.want), e.settle(tc.who, w.artist, w.sponsor, ref, 50)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		// The same reference again returns the stored result, seen the same way.
		if diff := cmp.Diff(fail(tc.want), e.settle(tc.who, w.artist, w.sponsor, ref, 50)); diff != "" {
			t.Errorf("%s, repeated reference (-want +got):\n%s", tc.name, diff)
		}
	}
	// Admins reading the settlement records see what happened, figures included.
	var stored string
	if err := e.query(user(w.admin), `SELECT result ->> 'error' FROM public.stream_settlements WHERE reference = 'stream-figures-0'`,
		nil, &stored); err != nil || stored != full {
		t.Errorf("admin reads the fan's settlement: %q %v, want %q", stored, err, full)
	}
	if e.balance(w.sponsor) != "20.00" || e.balance(w.artist) != "0.00" {
		t.Errorf("refusals moved money: sponsor %s, artist %s", e.balance(w.sponsor), e.balance(w.artist))
	}

	// Paid: the balances after the transfer follow the same rule; the
	// artist's is the artist's (or an admin's) to read.
	e.fund(w.sponsor, 1000)
	paid := func(artistBalance, sponsorBalance any) map[string]any {
		return map[string]any{"success": true, "error": nil,
			"transaction": map[string]any{"amount": 50.0, "artist_balance": artistBalance, "sponsor_balance": sponsorBalance}}
	}
	wants := []map[string]any{paid(nil, nil), paid(nil, 920.0), paid(nil, nil), paid(200.0, 820.0)}
	for i, tc := range cases {
		ref := fmt.Sprintf("stream-paid-%d", i)
		if diff := cmp.Diff(wants[i], e.settle(tc.who, w.artist, w.sponsor, ref, 50)); diff != "" {
			t.Errorf("%s paid (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(wants[i], e.settle(tc.who, w.artist, w.sponsor, ref, 50)); diff != "" {
			t.Errorf("%s paid, repeated reference (-want +got):\n%s", tc.name, diff)
		}
	}
	if e.balance(w.sponsor) != "820.00" || e.balance(w.artist) != "200.00" {
		t.Errorf("after four payments: sponsor %s, artist %s", e.balance(w.sponsor), e.balance(w.artist))
	}
	e.conserved()
}

// TestSettlementAmount: the amount a client sends is only a claim. The
// configured amount is paid when it is omitted and when it differs, and
// the answer says what was paid.
func TestSettlementAmount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.sponsor, 1000)
	pay := func(claim any, want float64) {
		t.Helper()
		fan := e.freshFan()
		if valid, reason := e.listen(fan, w.track, 31); !valid {
			t.Fatal(reason)
		}
		before := e.balance(w.sponsor)
		got := e.settle(fan, w.artist, w.sponsor, fmt.Sprintf("stream-amount-%s", fan.uid), claim)
		tx, _ := got["transaction"].(map[string]any)
		if got["success"] != true || tx["amount"] != want {
			t.Errorf("amount %v: %v, want %v paid", claim, got, want)
		}
		moved := scalar[float64](e, `SELECT ($1::numeric - balance)::float8 FROM public.wallets WHERE id = $2`, before, w.sponsor)
		if moved != want {
			t.Errorf("amount %v: the sponsor paid %v, want %v", claim, moved, want)
		}
	}
	for _, claim := range []any{nil, 50, 5000, 0.01, -50} {
		pay(claim, 50)
	}
	// An operator changes the amount without a deploy: clients still
	// claiming the old one pay the new one.
	if _, err := e.execAs(user(w.admin), `UPDATE public.app_settings SET value = '75' WHERE key = 'stream_payment_amount'`); err != nil {
		t.Fatal(err)
	}
	pay(50, 75)
	pay(nil, 75)
	e.conserved()
}
