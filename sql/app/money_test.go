package app_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

var ipSeq atomic.Int64

// freshFan signs up a fan with an address no one else used.
func (e *env) freshFan() caller {
	n := ipSeq.Add(1)
	return caller{uid: e.signUp("fan"), ip: fmt.Sprintf("10.%d.%d.%d", (n>>16)&255, (n>>8)&255, n&255)}
}

// callJSON runs a jsonb-returning function call as c and decodes it.
func (e *env) callJSON(c caller, sql string, args ...any) (map[string]any, error) {
	var raw string
	if err := e.query(c, sql, args, &raw); err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		e.t.Fatalf("decode %s: %v", raw, err)
	}
	return m, nil
}

func (e *env) serviceJSON(sql string, args ...any) (map[string]any, error) {
	var raw string
	err := pg.AsCaller(e.ctx, e.db.User, service(), func(tx pgx.Tx) error {
		return tx.QueryRow(e.ctx, sql, args...).Scan(&raw)
	})
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		e.t.Fatalf("decode %s: %v", raw, err)
	}
	return m, nil
}

const settleSQL = `SELECT public.settle_sponsored_stream($1, $2, $3, $4)::text`

func (e *env) settle(c caller, artist, sponsor, ref string, amount any) map[string]any {
	e.t.Helper()
	m, err := e.callJSON(c, settleSQL, artist, sponsor, ref, amount)
	if err != nil {
		e.t.Fatalf("settle %s: %v", ref, err)
	}
	return m
}

func TestTransferFunds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.sponsor, 100)
	transfer := `SELECT public.transfer_funds($1, $2, $3, $4, 'transfer')::text`

	got, err := e.serviceJSON(transfer, w.sponsor, w.artist, "30.50", "t-1")
	if err != nil {
		t.Fatal(err)
	}
	if got["from_balance"] != 69.5 || got["to_balance"] != 30.5 || got["already_processed"] != false {
		t.Errorf("transfer = %v", got)
	}
	row := scalar[string](e, `SELECT kind || ' ' || from_wallet || ' ' || to_wallet || ' ' || amount || ' ' || from_balance_after || ' ' || to_balance_after
		FROM public.transactions WHERE reference = 't-1'`)
	if want := fmt.Sprintf("transfer %s %s 30.50 69.50 30.50", w.sponsor, w.artist); row != want {
		t.Errorf("ledger row %q, want %q", row, want)
	}
	// The same reference again is the first transfer, not a second one.
	got, err = e.serviceJSON(transfer, w.sponsor, w.artist, "30.50", "t-1")
	if err != nil || got["already_processed"] != true || e.balance(w.sponsor) != "69.50" {
		t.Errorf("repeat = %v %v, sponsor balance %s", got, err, e.balance(w.sponsor))
	}
	refusals := []struct {
		name, from, to, amount, ref, code, msg string
	}{
		{"reference reused for another amount", w.sponsor, w.artist, "1", "t-1", "23505", ""},
		{"overdraw", w.sponsor, w.artist, "70", "t-2", "P0001", "insufficient funds: has 69.5, needs 70"},
		{"zero", w.sponsor, w.artist, "0", "t-3", "22023", ""},
		{"negative", w.sponsor, w.artist, "-5", "t-4", "22023", ""},
		{"sub-kobo", w.sponsor, w.artist, "1.005", "t-5", "22023", ""},
		{"same wallet", w.sponsor, w.sponsor, "1", "t-6", "22023", ""},
		{"no wallet", w.sponsor, "00000000-0000-0000-0000-000000000123", "1", "t-7", "P0002", ""},
		{"empty reference", w.sponsor, w.artist, "1", " ", "22023", ""},
		// From an external account no balance stops it: NaN would be written.
		{"not a number", "00000000-0000-0000-0000-00000000f004", w.artist, "NaN", "t-8", "22023", ""},
		{"infinity", "00000000-0000-0000-0000-00000000f004", w.artist, "Infinity", "t-9", "22023", ""},
	}
	for _, tc := range refusals {
		_, err := e.serviceJSON(transfer, tc.from, tc.to, tc.amount, tc.ref)
		if sqlState(err) != tc.code || (tc.msg != "" && sqlMessage(err) != tc.msg) {
			t.Errorf("%s: %v, want %s %s", tc.name, err, tc.code, tc.msg)
		}
	}
	if e.balance(w.sponsor) != "69.50" || e.balance(w.artist) != "30.50" {
		t.Errorf("refusals moved money: %s %s", e.balance(w.sponsor), e.balance(w.artist))
	}
	for _, c := range []caller{user(w.sponsor), user(w.admin), anon} {
		if _, err := e.try(c, `SELECT public.transfer_funds($1, $2, 1, 'x', 'transfer')`, w.sponsor, w.fan); sqlState(err) != denied {
			t.Errorf("transfer_funds as %q: %v", c.uid, err)
		}
	}
	e.conserved()
}

// TestSettlement checks every eligibility rule of spec section 5, in order,
// with its message, plus the reference and fail-closed cases (the amount:
// TestSettlementAmount).
func TestSettlement(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.sponsor, 1000)
	fail := func(msg string) map[string]any {
		return map[string]any{"success": false, "error": msg, "transaction": nil}
	}

	t.Run("a valid sponsored stream pays once", func(t *testing.T) {
		fan := e.freshFan()
		if valid, reason := e.listen(fan, w.track, 31); !valid {
			t.Fatal(reason)
		}
		// The balances are the parties' own (TestSettlementBalanceFigures).
		want := map[string]any{"success": true, "error": nil,
			"transaction": map[string]any{"amount": 50.0, "artist_balance": nil, "sponsor_balance": nil}}
		if diff := cmp.Diff(want, e.settle(fan, w.artist, w.sponsor, "stream-ok", 50)); diff != "" {
			t.Fatalf("settle (-want +got):\n%s", diff)
		}
		// Same reference: the first result, no second transfer.
		if diff := cmp.Diff(want, e.settle(fan, w.artist, w.sponsor, "stream-ok", 50)); diff != "" {
			t.Errorf("repeat (-want +got):\n%s", diff)
		}
		// A new reference for the same stream: nothing left to pay.
		if diff := cmp.Diff(fail("Track not found"), e.settle(fan, w.artist, w.sponsor, "stream-again", 50)); diff != "" {
			t.Errorf("second reference (-want +got):\n%s", diff)
		}
		// Someone else's reference is not theirs to read.
		if diff := cmp.Diff(fail("Payment reference already used"), e.settle(e.freshFan(), w.artist, w.sponsor, "stream-ok", 50)); diff != "" {
			t.Errorf("foreign reference (-want +got):\n%s", diff)
		}
		if e.balance(w.artist) != "50.00" || e.balance(w.sponsor) != "950.00" {
			t.Errorf("balances %s/%s", e.balance(w.artist), e.balance(w.sponsor))
		}
		if n := scalar[int64](e, `SELECT count(*) FROM public.streams WHERE paid_reference = 'stream-ok'`); n != 1 {
			t.Errorf("%d streams marked paid", n)
		}
	})

	type setup func(fan caller) (artist, sponsor string, amount any)
	listenTo := func(track string) setup {
		return func(fan caller) (string, string, any) {
			if valid, reason := e.listen(fan, track, 31); !valid {
				t.Fatalf("setup stream: %s", reason)
			}
			return w.artist, w.sponsor, 50
		}
	}
	sponsoredBy2 := scalar[string](e, `INSERT INTO public.tracks (title, artist_id, is_sponsored, sponsor_id)
		VALUES ('Broke Sponsor Song', $1, true, $2) RETURNING id::text`, w.artist2, w.sponsor2)
	cases := []struct {
		name  string
		setup setup
		want  string
	}{
		{"1. the artist", func(fan caller) (string, string, any) { return fan.uid, w.sponsor, 50 }, "Artist cannot stream own tracks for payment"},
		{"2. no recent valid stream", func(fan caller) (string, string, any) { return w.artist, w.sponsor, 50 }, "Track not found"},
		{"2. stream too short to count", func(fan caller) (string, string, any) {
			e.listen(fan, w.track, 10)
			return w.artist, w.sponsor, 50
		}, "Track not found"},
		{"2. stream older than 10 minutes", func(fan caller) (string, string, any) {
			listenTo(w.track)(fan)
			e.exec(`UPDATE public.streams SET created_at = now() - interval '11 minutes' WHERE user_id = $1`, fan.uid)
			return w.artist, w.sponsor, 50
		}, "Track not found"},
		{"2. another artist", func(fan caller) (string, string, any) {
			listenTo(w.track)(fan)
			return w.artist2, w.sponsor, 50
		}, "Artist ID mismatch"},
		{"2. unsponsored track", listenTo(w.plainTrack), "Track is not sponsored"},
		{"3. critical fraud risk", func(fan caller) (string, string, any) {
			a, s, amt := listenTo(w.track)(fan)
			if _, err := e.execAs(fan, `SELECT public.update_device_fingerprint($1, 'bot', 'HeadlessChrome Selenium', '0x0', NULL, NULL, NULL, NULL, '{"webdriver": true}')`, fan.uid); err != nil {
				t.Fatal(err)
			}
			return a, s, amt
		}, "Stream blocked due to critical fraud risk: Automated or headless device (trust score 0)"},
		{"4. more than 3 from the address", func(fan caller) (string, string, any) {
			a, s, amt := listenTo(w.track)(fan)
			e.exec(`INSERT INTO public.streams (track_id, user_id, is_valid, ip_address, created_at)
				SELECT $1, $2, true, backline.ip_key($3), now() - interval '1 hour' FROM generate_series(1, 3)`, w.track, w.fan2, fan.ip)
			return a, s, amt
		}, "This track has been streamed 4 times from your location in 24 hours (max: 3)"},
		{"5. more than 25 in the hour", func(fan caller) (string, string, any) {
			a, s, amt := listenTo(w.track)(fan)
			e.exec(`INSERT INTO public.streams (track_id, user_id, is_valid, created_at)
				SELECT $1, $2, true, now() - interval '30 minutes' FROM generate_series(1, 25)`, w.plainTrack, fan.uid)
			return a, s, amt
		}, "Too many streams (26) in the last hour. Maximum allowed: 25/hour"},
		{"5. more than 200 in the day", func(fan caller) (string, string, any) {
			a, s, amt := listenTo(w.track)(fan)
			e.exec(`INSERT INTO public.streams (track_id, user_id, is_valid, created_at)
				SELECT $1, $2, true, now() - interval '5 hours' FROM generate_series(1, 200)`, w.plainTrack, fan.uid)
			return a, s, amt
		}, "Too many streams (201) in the last 24 hours. Maximum allowed: 200/day"},
		{"6. a sponsor who does not sponsor the track", func(fan caller) (string, string, any) {
			a, _, amt := listenTo(w.track)(fan)
			return a, w.sponsor2, amt
		}, "No active sponsorship relationship found"},
		{"7. sponsor without enough money", func(fan caller) (string, string, any) {
			listenTo(sponsoredBy2)(fan)
			return w.artist2, w.sponsor2, 50
		}, "Insufficient sponsor balance"}, // the figures are the sponsor's (TestSettlementBalanceFigures)
	}
	for i, tc := range cases {
		fan := e.freshFan()
		artist, sponsor, amount := tc.setup(fan)
		before := e.balance(w.sponsor)
		got := e.settle(fan, artist, sponsor, fmt.Sprintf("stream-case-%d", i), amount)
		if diff := cmp.Diff(fail(tc.want), got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if after := e.balance(w.sponsor); after != before {
			t.Errorf("%s: sponsor balance %s -> %s", tc.name, before, after)
		}
	}

	t.Run("an unreadable sponsor wallet pays nothing", func(t *testing.T) {
		fan := e.freshFan()
		e.listen(fan, sponsoredBy2, 31)
		e.exec(`DELETE FROM public.wallets WHERE id = $1`, w.sponsor2)
		if diff := cmp.Diff(fail("Cannot verify sponsor wallet"), e.settle(fan, w.artist2, w.sponsor2, "stream-nowallet", 50)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("a fraud check that cannot run pays nothing", func(t *testing.T) {
		fan := e.freshFan()
		if valid, reason := e.listen(fan, w.track, 31); !valid {
			t.Fatal(reason)
		}
		e.exec(`DELETE FROM public.app_settings WHERE key = 'device_trust_suspicious_below'`)
		defer e.exec(`INSERT INTO public.app_settings (key, value, is_public) VALUES ('device_trust_suspicious_below', '60', true)`)
		if diff := cmp.Diff(fail("Fraud detection system error"), e.settle(fan, w.artist, w.sponsor, "stream-fraud-down", 50)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("callers", func(t *testing.T) {
		if _, err := e.try(anon, `SELECT public.settle_sponsored_stream($1, $2, 'x', 50)`, w.artist, w.sponsor); sqlState(err) != denied {
			t.Errorf("visitor: %v", err)
		}
		got, err := e.serviceJSON(settleSQL, w.artist, w.sponsor, "stream-svc", 50)
		if err != nil || got["error"] != "Authentication required" {
			t.Errorf("service role without a listener: %v %v", got, err)
		}
		if got := e.settle(e.freshFan(), w.artist, w.sponsor, "", 50); got["error"] != "A payment reference is required" {
			t.Errorf("empty reference: %v", got)
		}
	})
	e.conserved()
}

func TestPayments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	sponsor := user(w.sponsor)
	create := `SELECT public.create_payment($1, $2, $3)::text`

	t.Run("checkout breakdown", func(t *testing.T) {
		cases := []struct {
			provider, purpose string
			amount            any
			prefix            string
			want              [4]float64 // amount, vat, fee, total
		}{
			{"flutterwave", "topup", 5000, "flw-", [4]float64{5000, 375, 1000, 6375}},
			{"paystack", "topup", 1234, "ps-", [4]float64{1234, 93, 1000, 2327}},
			{"flutterwave", "verification", nil, "verification-", [4]float64{60000, 4500, 1000, 65500}},
			{"paystack", "verification", 5, "verification-", [4]float64{60000, 4500, 1000, 65500}},
		}
		for _, tc := range cases {
			got, err := e.callJSON(sponsor, create, tc.provider, tc.purpose, tc.amount)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.provider, tc.purpose, err)
			}
			have := [4]float64{got["amount"].(float64), got["vat"].(float64), got["fee"].(float64), got["total"].(float64)}
			if have != tc.want || !strings.HasPrefix(got["tx_ref"].(string), tc.prefix) || got["purpose"] != tc.purpose || got["provider"] != tc.provider {
				t.Errorf("%s %s: %v", tc.provider, tc.purpose, got)
			}
		}
		refusals := []struct {
			provider, purpose string
			amount            any
			msg               string
		}{
			{"flutterwave", "topup", 50, "Minimum top-up is ₦100"},
			{"flutterwave", "topup", nil, "Enter a valid amount"},
			{"flutterwave", "topup", "10.001", "Enter a valid amount"},
			{"flutterwave", "topup", "NaN", "Enter a valid amount"},
			{"flutterwave", "topup", "Infinity", "Enter a valid amount"},
			{"stripe", "topup", 500, "Unknown payment provider"},
			{"flutterwave", "gift", 500, "Unknown payment purpose"},
		}
		for _, tc := range refusals {
			_, err := e.callJSON(sponsor, create, tc.provider, tc.purpose, tc.amount)
			if sqlState(err) != "P0001" || sqlMessage(err) != tc.msg {
				t.Errorf("%v: %v, want %q", tc, err, tc.msg)
			}
		}
		if _, err := e.try(anon, `SELECT public.create_payment('flutterwave', 'topup', 500)`); sqlState(err) != denied {
			t.Errorf("visitor: %v", err)
		}
	})

	complete := `SELECT public.complete_payment($1, $2, $3, $4, $5, '{"id": 1}')::text`
	newPayment := func(c caller, purpose string, amount any) (ref string, total float64) {
		got, err := e.callJSON(c, create, "flutterwave", purpose, amount)
		if err != nil {
			t.Fatal(err)
		}
		return got["tx_ref"].(string), got["total"].(float64)
	}
	t.Run("top-up credits the wallet once", func(t *testing.T) {
		ref, total := newPayment(sponsor, "topup", 5000)
		// Another signed-in account coming back from checkout gets nothing.
		got, err := e.serviceJSON(complete, "flutterwave", ref, w.fan, total, "successful")
		if err != nil || got["session_mismatch"] != true || got["success"] != false {
			t.Fatalf("mismatch: %v %v", got, err)
		}
		if e.balance(w.fan) != "0.00" || e.balance(w.sponsor) != "0.00" {
			t.Fatal("mismatch credited a wallet")
		}
		got, err = e.serviceJSON(complete, "flutterwave", ref, w.sponsor, total, "successful")
		want := map[string]any{"success": true, "message": "Wallet top-up successful! ₦5,000 has been added to your wallet.",
			"already_processed": false, "session_mismatch": false, "amount": 5000.0, "purpose": "topup", "verified_until": nil,
			"credited_to_wallet": false}
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Fatalf("complete (-want +got):\n%s %v", diff, err)
		}
		// A webhook (no browser session) for the same payment: already done.
		got, err = e.serviceJSON(complete, "flutterwave", ref, nil, total, "successful")
		if err != nil || got["already_processed"] != true || got["success"] != true {
			t.Errorf("repeat: %v %v", got, err)
		}
		if e.balance(w.sponsor) != "5000.00" {
			t.Errorf("balance %s, want 5000.00", e.balance(w.sponsor))
		}
		if b := scalar[string](e, `SELECT balance::text FROM public.wallets WHERE account = 'provider:flutterwave'`); b != "-5000.00" {
			t.Errorf("provider account %s", b)
		}
		e.conserved()
	})
	t.Run("concurrent completions credit once", func(t *testing.T) {
		ref, total := newPayment(user(w.artist2), "topup", 700)
		var wg sync.WaitGroup
		for i := 0; i < 12; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := e.serviceJSON(complete, "flutterwave", ref, nil, total, "successful"); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if e.balance(w.artist2) != "700.00" {
			t.Errorf("balance %s, want 700.00", e.balance(w.artist2))
		}
	})
	t.Run("refusals", func(t *testing.T) {
		ref, total := newPayment(sponsor, "topup", 1000)
		got, _ := e.serviceJSON(complete, "flutterwave", ref, w.sponsor, total-1, "successful")
		if got["success"] != false || got["message"] != "Amount paid (2074) does not match the amount due (2075)" {
			t.Errorf("underpaid: %v", got)
		}
		ref, total = newPayment(sponsor, "topup", 1000)
		got, _ = e.serviceJSON(complete, "flutterwave", ref, w.sponsor, total, "failed")
		if got["success"] != false || got["message"] != "Payment was not successful: failed" {
			t.Errorf("failed: %v", got)
		}
		got, _ = e.serviceJSON(complete, "flutterwave", "flw-unknown", w.sponsor, 1, "successful")
		if got["success"] != false || got["message"] != "Payment not found" {
			t.Errorf("unknown: %v", got)
		}
		if e.balance(w.sponsor) != "5000.00" {
			t.Errorf("refusals credited: %s", e.balance(w.sponsor))
		}
		for _, c := range []caller{sponsor, user(w.admin), anon} {
			if _, err := e.try(c, `SELECT public.complete_payment('flutterwave', $1, $2, 99999, 'successful', NULL)`, ref, w.sponsor); sqlState(err) != denied {
				t.Errorf("complete_payment as %q: %v", c.uid, err)
			}
		}
	})
	t.Run("verification for one year", func(t *testing.T) {
		ref, total := newPayment(user(w.artist), "verification", nil)
		got, err := e.serviceJSON(complete, "flutterwave", ref, w.artist, total, "successful")
		if err != nil || got["success"] != true || got["message"] != "Verification successful! Your profile has been verified for 1 year." {
			t.Fatalf("verification: %v %v", got, err)
		}
		ok := scalar[bool](e, `SELECT is_verified AND verification_expires_at BETWEEN now() + interval '364 days' AND now() + interval '366 days'
			FROM public.public_profiles WHERE id = $1`, w.artist)
		if !ok {
			t.Error("profile not verified for a year")
		}
		if n := scalar[int64](e, `SELECT count(*) FROM public.verifications WHERE user_id = $1`, w.artist); n != 1 {
			t.Errorf("%d verification rows", n)
		}
		if e.balance(w.artist) != "0.00" {
			t.Error("verification touched the wallet")
		}
	})
}

func TestCashouts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	artist, admin := user(w.artist), user(w.admin)
	e.fund(w.artist, 5000)
	request := `SELECT public.request_cashout($1)::text`

	refusals := []struct {
		name string
		as   caller
		amt  any
		msg  string
	}{
		{"under the minimum", artist, 999, "Minimum cash-out amount is ₦1,000"},
		{"more than the balance", artist, 5001, "Insufficient balance. Has ₦5,000, needs ₦5,001"},
		{"a fan", user(w.fan), 1000, "Only artists can request a cash-out"},
		{"a sponsor", user(w.sponsor), 1000, "Only artists can request a cash-out"},
		{"no amount", artist, nil, "Enter a valid amount"},
		{"not a number", artist, "NaN", "Enter a valid amount"},
		{"infinity", artist, "Infinity", "Enter a valid amount"},
		{"minus infinity", artist, "-Infinity", "Enter a valid amount"},
	}
	for _, tc := range refusals {
		if _, err := e.callJSON(tc.as, request, tc.amt); sqlMessage(err) != tc.msg {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.msg)
		}
	}
	if _, err := e.try(anon, `SELECT public.request_cashout(1000)`); sqlState(err) != denied {
		t.Errorf("visitor: %v", err)
	}

	// The refusals above come before the bank details are looked at; a
	// request that passes them names a bank, a NUBAN and an account name.
	request = `SELECT public.request_cashout($1, 'Zenith Bank', '0123456789', 'Ada Artist')::text`
	first, err := e.callJSON(artist, request, 1000)
	if err != nil || first["balance"] != 4000.0 || first["status"] != "pending" {
		t.Fatalf("request at the minimum: %v %v", first, err)
	}
	second, err := e.callJSON(artist, request, 2500)
	if err != nil {
		t.Fatal(err)
	}
	held := func() string {
		return scalar[string](e, `SELECT balance::text FROM public.wallets WHERE account = 'cashout:held'`)
	}
	if e.balance(w.artist) != "1500.00" || held() != "3500.00" {
		t.Errorf("after requests: wallet %s held %s", e.balance(w.artist), held())
	}

	for _, c := range []caller{artist, user(w.fan)} {
		if _, err := e.try(c, `SELECT public.complete_cashout($1)`, first["id"]); sqlState(err) != denied {
			t.Errorf("complete_cashout as non-admin: %v", err)
		}
	}
	if _, err := e.callJSON(admin, `SELECT public.complete_cashout($1)::text`, first["id"]); err != nil {
		t.Fatal(err)
	}
	if _, err := e.callJSON(admin, `SELECT public.complete_cashout($1)::text`, first["id"]); sqlMessage(err) != "Cash-out request is already completed" {
		t.Errorf("completing twice: %v", err)
	}
	if _, err := e.callJSON(admin, `SELECT public.reject_cashout($1, 'Bank details do not match')::text`, second["id"]); err != nil {
		t.Fatal(err)
	}
	if _, err := e.callJSON(admin, `SELECT public.reject_cashout($1, 'x')::text`, second["id"]); sqlMessage(err) != "Cash-out request is already rejected" {
		t.Errorf("rejecting twice: %v", err)
	}
	paid := scalar[string](e, `SELECT balance::text FROM public.wallets WHERE account = 'cashout:paid'`)
	if e.balance(w.artist) != "4000.00" || held() != "0.00" || paid != "1000.00" {
		t.Errorf("after admin: wallet %s held %s paid %s", e.balance(w.artist), held(), paid)
	}
	notes := scalar[string](e, `SELECT string_agg(type || ': ' || message, ' | ' ORDER BY created_at, type) FROM public.notifications
		WHERE user_id = $1 AND type LIKE 'cashout%'`, w.artist)
	want := "cashout_submitted: Your cash-out request of ₦1,000 has been submitted and is awaiting review. | " +
		"cashout_submitted: Your cash-out request of ₦2,500 has been submitted and is awaiting review. | " +
		"cashout_completed: Your cash-out of ₦1,000 has been completed. | " +
		"cashout_updated: Your cash-out request of ₦2,500 was rejected: Bank details do not match. The amount has been returned to your wallet."
	if notes != want {
		t.Errorf("notifications:\n%s\nwant\n%s", notes, want)
	}
	// What came in = what users hold + what is held + what was paid out.
	in := scalar[string](e, `SELECT (-sum(balance))::text FROM public.wallets WHERE account LIKE 'provider:%'`)
	out := scalar[string](e, `SELECT sum(balance)::text FROM public.wallets WHERE kind = 'user' OR account IN ('cashout:held', 'cashout:paid')`)
	if in != out || in != "5000.00" {
		t.Errorf("in %s, held and out %s", in, out)
	}
	completed := scalar[string](e, `SELECT sum(amount)::text FROM public.cashout_requests WHERE status = 'completed'`)
	if completed != paid {
		t.Errorf("completed cash-outs %s, paid account %s", completed, paid)
	}
	e.conserved()
}

func TestInvites(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	artist, sponsor2 := user(w.artist), user(w.sponsor2)
	respond := `SELECT public.respond_to_invite($1, $2)::text`
	notes := func(uid, typ string) []map[string]any {
		raw := scalar[string](e, `SELECT coalesce(jsonb_agg(jsonb_build_object('title', title, 'message', message, 'data', data) ORDER BY created_at), '[]')::text
			FROM public.notifications WHERE user_id = $1 AND type = $2`, uid, typ)
		var out []map[string]any
		_ = json.Unmarshal([]byte(raw), &out)
		return out
	}

	// A sponsor invites the artist for the unsponsored track.
	var invite string
	if err := e.query(sponsor2, `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id, pitch, status)
		VALUES ($1, $2, $3, 'We love this', 'accepted') RETURNING id::text`, []any{w.artist, w.sponsor2, w.plainTrack}, &invite); err != nil {
		t.Fatal(err)
	}
	if st := scalar[string](e, `SELECT status || '/' || initiated_by FROM public.sponsor_artist_invites WHERE id = $1`, invite); st != "pending/sponsor" {
		t.Errorf("a new invite is %s", st)
	}
	got := notes(w.artist, "sponsor_invite")
	if len(got) != 2 || got[1]["data"].(map[string]any)["invite_id"] != invite || got[1]["data"].(map[string]any)["pitch"] != "We love this" {
		t.Fatalf("artist notifications: %v", got)
	}
	// A competing pitch for the same track, from the artist to another sponsor.
	var pitch string
	if err := e.query(artist, `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id, pitch)
		VALUES ($1, $2, $3, 'Back my song') RETURNING id::text`, []any{w.artist, w.sponsor, w.plainTrack}, &pitch); err != nil {
		t.Fatal(err)
	}
	if got := notes(w.sponsor, "artist_invite"); len(got) != 1 || got[0]["data"].(map[string]any)["pitch"] != "Back my song" {
		t.Errorf("sponsor notifications: %v", got)
	}

	for _, c := range []caller{sponsor2, user(w.fan), user(w.artist2)} {
		if _, err := e.callJSON(c, respond, invite, true); sqlMessage(err) != "Invalid invitation data" {
			t.Errorf("respond as non-invitee %s: %v", c.uid, err)
		}
	}
	if _, err := e.callJSON(artist, respond, nil, true); sqlMessage(err) != "Invalid invitation data" {
		t.Errorf("missing invite id: %v", err)
	}
	res, err := e.callJSON(artist, respond, invite, true)
	if err != nil || res["status"] != "accepted" || res["message"] != "You have successfully accepted the sponsorship request" {
		t.Fatalf("accept: %v %v", res, err)
	}
	if got := scalar[string](e, `SELECT is_sponsored || '/' || sponsor_id FROM public.tracks WHERE id = $1`, w.plainTrack); got != "true/"+w.sponsor2 {
		t.Errorf("track after acceptance: %s", got)
	}
	if _, err := e.callJSON(artist, respond, invite, false); sqlMessage(err) != "This invitation has already been answered" {
		t.Errorf("answering twice: %v", err)
	}
	// The competing pitch lapsed, and its sponsor was told.
	if st := scalar[string](e, `SELECT status FROM public.sponsor_artist_invites WHERE id = $1`, pitch); st != "rejected" {
		t.Errorf("competing pitch is %s", st)
	}
	titles := func(uid string) string {
		return scalar[string](e, `SELECT coalesce(string_agg(title, ', ' ORDER BY created_at, title), '') FROM public.notifications WHERE user_id = $1 AND type = 'system_update'`, uid)
	}
	if got := titles(w.sponsor2); got != "Invitation Accepted" {
		t.Errorf("sponsor2 told: %q", got)
	}
	if got := titles(w.artist); got != "Invitation Declined, Sponsorship Active" && got != "Sponsorship Active, Invitation Declined" {
		t.Errorf("artist told: %q", got)
	}
	// The track is sponsored now: it cannot be pitched to other sponsors.
	if _, err := e.try(artist, `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id) VALUES ($1, $2, $3)`,
		w.artist, w.sponsor, w.plainTrack); sqlMessage(err) != "Track is already sponsored" {
		t.Errorf("pitching a sponsored track: %v", err)
	}

	// An artist's pitch is answered by the sponsor; declining tells the artist.
	other := scalar[string](e, `INSERT INTO public.tracks (title, artist_id) VALUES ('Third', $1) RETURNING id::text`, w.artist2)
	var ask string
	if err := e.query(user(w.artist2), `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id) VALUES ($1, $2, $3) RETURNING id::text`,
		[]any{w.artist2, w.sponsor, other}, &ask); err != nil {
		t.Fatal(err)
	}
	if _, err := e.callJSON(user(w.artist2), respond, ask, true); sqlMessage(err) != "Invalid invitation data" {
		t.Errorf("artist answering own pitch: %v", err)
	}
	if res, err := e.callJSON(user(w.sponsor), respond, ask, false); err != nil || res["status"] != "rejected" {
		t.Errorf("decline: %v %v", res, err)
	}
	if got := titles(w.artist2); got != "Invitation Declined" {
		t.Errorf("artist2 told: %q", got)
	}
	if sp := scalar[bool](e, `SELECT is_sponsored FROM public.tracks WHERE id = $1`, other); sp {
		t.Error("declined pitch sponsored the track")
	}

	// The spec's direct table write works the same: accept by UPDATE, then
	// the app's own track update is harmless.
	direct := scalar[string](e, `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id) VALUES ($1, $2, $3) RETURNING id::text`,
		w.artist2, w.sponsor, other)
	if n, err := e.execAs(user(w.artist2), `UPDATE public.sponsor_artist_invites SET status = 'accepted' WHERE id = $1`, direct); err != nil || n != 1 {
		t.Fatalf("direct accept: %d %v", n, err)
	}
	if n, err := e.execAs(user(w.artist2), `UPDATE public.tracks SET is_sponsored = true, sponsor_id = $2 WHERE id = $1`, other, w.sponsor); err != nil || n != 1 {
		t.Errorf("app's track update: %d %v", n, err)
	}
	if got := scalar[string](e, `SELECT is_sponsored || '/' || sponsor_id FROM public.tracks WHERE id = $1`, other); got != "true/"+w.sponsor {
		t.Errorf("track after direct acceptance: %s", got)
	}
}
