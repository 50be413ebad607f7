package app_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// The rules of 0015_money_integrity.sql.

// TestVerificationExtendedOnce: two verification checkouts opened before
// either is paid (both pass the checkout guard), then both completed at the
// same moment. The verification is extended once; the other payment is
// refunded in full (VAT and fee included) to the payer's wallet under the
// top-up's reference, so each
// paid reference lands in exactly one place and no money goes missing. The
// same holds for two renewals in the last 30 days.
func TestVerificationExtendedOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	// artist2 is in the renewal window: renewing adds a year to the expiry.
	e.exec(`UPDATE public.public_profiles SET is_verified = true, verification_expires_at = now() + interval '20 days' WHERE id = $1`, w.artist2)
	for _, tc := range []struct {
		name, who string
		days      int // the expiry wanted, in days from now
	}{
		{"first purchase", w.artist, 365},
		{"renewal", w.artist2, 385},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refs := make([]string, 2)
			totals := make([]float64, 2)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range refs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					got, err := e.callJSON(user(tc.who), `SELECT public.create_payment('flutterwave', 'verification')::text`)
					if err != nil {
						t.Errorf("checkout %d: %v", i, err)
						return
					}
					refs[i], totals[i] = got["tx_ref"].(string), got["total"].(float64)
				}()
			}
			close(start)
			wg.Wait()
			if t.Failed() {
				return
			}

			results := make([]map[string]any, 2)
			start = make(chan struct{})
			for i := range refs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					var err error
					results[i], err = e.serviceJSON(`SELECT public.complete_payment('flutterwave', $1, $2, $3, 'successful', '{}')::text`,
						refs[i], tc.who, totals[i])
					if err != nil {
						t.Errorf("complete %d: %v", i, err)
					}
				}()
			}
			close(start)
			wg.Wait()
			if t.Failed() {
				return
			}

			granted, credited := 0, 0
			for _, r := range results {
				switch {
				case r["success"] != true:
					t.Errorf("completion failed: %v", r)
				case r["credited_to_wallet"] == true:
					credited++
					if msg, _ := r["message"].(string); !strings.HasPrefix(msg, "Your profile is already verified until ") ||
						!strings.HasSuffix(msg, ". The ₦65,500 you paid, VAT and fees included, has been refunded to your wallet.") || r["refunded"] != 65500.0 {
						t.Errorf("credited payment's message %q", msg)
					}
				default:
					granted++
					if r["message"] != "Verification successful! Your profile has been verified for 1 year." {
						t.Errorf("granted payment's message %v", r["message"])
					}
				}
			}
			if granted != 1 || credited != 1 {
				t.Fatalf("%d payments extended the verification, %d went to the wallet; want 1 and 1: %v", granted, credited, results)
			}
			if ok := scalar[bool](e, `SELECT verification_expires_at BETWEEN now() + make_interval(days => $2 - 1) AND now() + make_interval(days => $2 + 1)
				FROM public.public_profiles WHERE id = $1`, tc.who, tc.days); !ok {
				t.Errorf("expiry %s, want about %d days from now", scalar[string](e,
					`SELECT (verification_expires_at - now())::text FROM public.public_profiles WHERE id = $1`, tc.who), tc.days)
			}
			// Every paid reference is credited exactly once: a verification
			// row or a ledger movement, never both, never neither.
			for _, ref := range refs {
				places := scalar[string](e, `SELECT p.status || '/' ||
					(SELECT count(*) FROM public.verifications v WHERE v.payment_id = p.id) || '/' ||
					(SELECT count(*) FROM public.transactions x WHERE x.reference = 'payment:flutterwave:' || p.tx_ref)
					FROM public.payments p WHERE p.tx_ref = $1`, ref)
				if places != "successful/1/0" && places != "successful/0/1" {
					t.Errorf("payment %s: status/verifications/ledger = %s", ref, places)
				}
			}
			if b := e.balance(tc.who); b != "65500.00" {
				t.Errorf("wallet %s, want the second payment's 65500.00, VAT and fee included", b)
			}
			// Asking again changes nothing.
			for i, ref := range refs {
				again, err := e.serviceJSON(`SELECT public.complete_payment('flutterwave', $1, NULL, $2, 'successful', '{}')::text`, ref, totals[i])
				if err != nil || again["already_processed"] != true || again["credited_to_wallet"] != results[i]["credited_to_wallet"] {
					t.Errorf("repeat of %s: %v %v", ref, again, err)
				}
			}
			if b := e.balance(tc.who); b != "65500.00" {
				t.Errorf("wallet after repeats %s", b)
			}
		})
	}
	e.conserved()
	if sum := e.mustJSON(user(w.admin), `SELECT public.admin_ledger_recheck()::text`); sum["balanced"] != true {
		t.Errorf("ledger after the verifications: %v", sum)
	}
}

// TestLedgerRunningTotals: after many money movements of every kind, made
// at once from several connections, the admin's check (running totals)
// agrees with a full recount; it reads no ledger row; and a wallet changed
// behind the ledger's back by the database owner is caught (by the check,
// or, with triggers off or changes that cancel out, by the full recheck).
func TestLedgerRunningTotals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	e.fund(w.sponsor, 100000)
	e.fund(w.artist2, 20000)

	ops := map[string]func(i int) error{
		"fund": func(i int) error {
			_, err := e.db.Admin.Exec(e.ctx, `SELECT backline.fund_wallet($1, $2, $3)`, w.fan, 10+i, fmt.Sprintf("fund-%d", i))
			return err
		},
		"top-up": func(i int) error {
			p, err := e.callJSON(user(w.sponsor2), `SELECT public.create_payment('paystack', 'topup', $1)::text`, 100+i)
			if err != nil {
				return err
			}
			_, err = e.serviceJSON(`SELECT public.complete_payment('paystack', $1, NULL, $2, 'successful', '{}')::text`, p["tx_ref"], p["total"])
			return err
		},
		"sponsored stream": func(i int) error {
			_, err := e.serviceJSON(`SELECT public.transfer_funds($1, $2, 50, $3, 'sponsored_stream')::text`, w.sponsor, w.artist, fmt.Sprintf("stream-%d", i))
			return err
		},
		"cash-out": func(i int) error {
			req, err := e.callJSON(user(w.artist2), `SELECT public.request_cashout(1000, 'Zenith Bank', '0123456789', 'Ada Artist')::text`)
			if err != nil {
				return err
			}
			settle := `SELECT public.complete_cashout($1)::text`
			if i%2 == 1 {
				settle = `SELECT public.reject_cashout($1, 'wrong account')::text`
			}
			_, err = e.callJSON(admin, settle, req["id"])
			return err
		},
		"adjustment": func(i int) error {
			amount := 25
			if i%3 == 2 {
				amount = -10
			}
			_, err := e.callJSON(admin, `SELECT public.admin_adjust_wallet($1, $2, 'goodwill')::text`, w.fan2, amount)
			return err
		},
	}
	var wg sync.WaitGroup
	for name, op := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 12 {
				if err := op(i); err != nil {
					t.Errorf("%s %d: %v", name, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	// The check on load reads the running totals, not the ledger: the
	// ledger's scan counters do not move across the call. (The backend's
	// pending counters can hold earlier transactions' counts, so the test
	// takes the difference within one transaction.)
	var scans, read int64
	err := e.as(admin, func(tx pgx.Tx) error {
		counters := `SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0), coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)
			FROM pg_stat_xact_all_tables WHERE relid = 'public.transactions'::regclass`
		var s0, r0, s1, r1 int64
		if err := tx.QueryRow(e.ctx, counters).Scan(&s0, &r0); err != nil {
			return err
		}
		if _, err := tx.Exec(e.ctx, `SELECT public.admin_ledger_summary()`); err != nil {
			return err
		}
		err := tx.QueryRow(e.ctx, counters).Scan(&s1, &r1)
		scans, read = s1-s0, r1-r0
		return err
	})
	if err != nil || scans != 0 || read != 0 {
		t.Errorf("admin_ledger_summary read the ledger: %d scans, %d rows %v", scans, read, err)
	}

	summary := e.mustJSON(admin, `SELECT public.admin_ledger_summary()::text`)
	recheck := e.mustJSON(admin, `SELECT public.admin_ledger_recheck()::text`)
	if summary["balanced"] != true || recheck["balanced"] != true || recheck["totals_match"] != true {
		t.Fatalf("after the movements: summary %v, recheck %v", summary, recheck)
	}
	for _, k := range []string{"wallets", "ledger"} {
		if fmt.Sprint(summary[k]) != fmt.Sprint(recheck[k]) {
			t.Errorf("%s: running %v, recounted %v", k, summary[k], recheck[k])
		}
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.transactions`); summary["ledger"].(map[string]any)["count"] != float64(n) {
		t.Errorf("running count %v, ledger rows %v", summary["ledger"], n)
	}

	check := func(when string, wantSummary, wantRecheck, wantTotals bool, wantOff float64) {
		t.Helper()
		s := e.mustJSON(admin, `SELECT public.admin_ledger_summary()::text`)
		r := e.mustJSON(admin, `SELECT public.admin_ledger_recheck()::text`)
		off := r["mismatched_wallets"].(map[string]any)
		if s["balanced"] != wantSummary || r["balanced"] != wantRecheck || r["totals_match"] != wantTotals || off["count"] != wantOff {
			t.Errorf("%s: summary balanced %v (want %v), recheck balanced %v (want %v), totals match %v (want %v), %v wallets off (want %v)",
				when, s["balanced"], wantSummary, r["balanced"], wantRecheck, r["totals_match"], wantTotals, off["count"], wantOff)
		}
	}
	// The owner adds ₦1 to a fan's wallet: the check on load sees it.
	e.exec(`UPDATE public.wallets SET balance = balance + 1 WHERE id = $1`, w.fan)
	check("one wallet changed", false, false, true, 1)
	e.exec(`UPDATE public.wallets SET balance = balance - 1 WHERE id = $1`, w.fan)
	check("changed back", true, true, true, 0)
	// Moved between two users: every total still adds up, but the two
	// wallets no longer match their ledger rows.
	e.exec(`UPDATE public.wallets SET balance = balance + CASE WHEN id = $1 THEN 5 ELSE -5 END WHERE id IN ($1, $2)`, w.fan2, w.fan)
	check("moved between users", true, false, true, 2)
	e.exec(`UPDATE public.wallets SET balance = balance + CASE WHEN id = $1 THEN -5 ELSE 5 END WHERE id IN ($1, $2)`, w.fan2, w.fan)
	// With triggers off the running totals miss the change; the recount
	// does not.
	err = pgx.BeginFunc(e.ctx, e.db.Admin, func(tx pgx.Tx) error {
		if _, err := tx.Exec(e.ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return err
		}
		_, err := tx.Exec(e.ctx, `UPDATE public.wallets SET balance = balance + 7 WHERE id = $1`, w.artist)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	check("changed with triggers off", true, false, false, 1)
}

// TestWalletHistory: the wallet's history page lists the caller's own
// movements from both sides, newest first, paged by offset with the count,
// filtered by kind and date; an admin (whom RLS lets read every row) sees
// only their own there, and a visitor nothing.
func TestWalletHistory(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.sponsor, 1000)
	for i := range 3 {
		if _, err := e.serviceJSON(`SELECT public.transfer_funds($1, $2, 50, $3, 'sponsored_stream', NULL, $4)::text`,
			w.sponsor, w.artist, fmt.Sprintf("history-%d", i), w.track); err != nil {
			t.Fatal(err)
		}
	}
	e.mustJSON(user(w.admin), `SELECT public.admin_adjust_wallet($1, 10, 'goodwill')::text`, w.sponsor)
	e.fund(w.fan, 5) // someone else's

	history := `SELECT public.get_wallet_history($1, $2, $3, $4, $5)::text`
	page := func(c caller, args ...any) (float64, []string) {
		t.Helper()
		h := e.mustJSON(c, history, args...)
		var refs []string
		for _, r := range h["rows"].([]any) {
			row := r.(map[string]any)
			if row["from_wallet"] != c.uid && row["to_wallet"] != c.uid {
				t.Errorf("someone else's movement %v", row)
			}
			refs = append(refs, row["reference"].(string))
		}
		return h["count"].(float64), refs
	}
	n, all := page(user(w.sponsor), nil, nil, nil, nil, nil)
	want := scalar[string](e, `SELECT string_agg(reference, ',' ORDER BY created_at DESC, id DESC) FROM public.transactions
		WHERE $1 IN (from_wallet, to_wallet)`, w.sponsor)
	if n != 5 || strings.Join(all, ",") != want {
		t.Fatalf("history: %v %v, want 5 rows %s", n, all, want)
	}
	var paged []string
	for off := 0; off < 6; off += 2 {
		cnt, refs := page(user(w.sponsor), nil, nil, nil, off, 2)
		if cnt != 5 {
			t.Errorf("count on page at %d: %v", off, cnt)
		}
		paged = append(paged, refs...)
	}
	if strings.Join(paged, ",") != want {
		t.Errorf("pages of 2: %v, want %s", paged, want)
	}
	if n, refs := page(user(w.sponsor), "sponsored_stream", nil, nil, nil, nil); n != 3 || len(refs) != 3 {
		t.Errorf("one kind: %v %v", n, refs)
	}
	if n, refs := page(user(w.sponsor), nil, "2100-01-01T00:00:00Z", nil, nil, nil); n != 0 || len(refs) != 0 {
		t.Errorf("from the future: %v %v", n, refs)
	}
	if n, refs := page(user(w.sponsor), nil, nil, "2000-01-01T00:00:00Z", nil, nil); n != 0 || len(refs) != 0 {
		t.Errorf("before 2000: %v %v", n, refs)
	}
	if n, refs := page(user(w.admin), nil, nil, nil, nil, nil); n != 0 || len(refs) != 0 {
		t.Errorf("an admin's own history: %v %v", n, refs)
	}
	if _, err := e.try(anon, `SELECT public.get_wallet_history()`); sqlState(err) != denied {
		t.Errorf("visitor: %v", err)
	}
}
