package app_test

import (
	"strings"
	"sync"
	"testing"
)

// The rules of 0015_money_integrity.sql.

// TestVerificationExtendedOnce: two verification checkouts opened before
// either is paid (both pass the checkout guard), then both completed at the
// same moment. The verification is extended once; the other payment is
// credited to the payer's wallet under the top-up's reference, so each
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
						!strings.HasSuffix(msg, "₦60,000 from this payment has been added to your wallet.") {
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
			if b := e.balance(tc.who); b != "60000.00" {
				t.Errorf("wallet %s, want the second payment's 60000.00", b)
			}
			// Asking again changes nothing.
			for i, ref := range refs {
				again, err := e.serviceJSON(`SELECT public.complete_payment('flutterwave', $1, NULL, $2, 'successful', '{}')::text`, ref, totals[i])
				if err != nil || again["already_processed"] != true || again["credited_to_wallet"] != results[i]["credited_to_wallet"] {
					t.Errorf("repeat of %s: %v %v", ref, again, err)
				}
			}
			if b := e.balance(tc.who); b != "60000.00" {
				t.Errorf("wallet after repeats %s", b)
			}
		})
	}
	e.conserved()
}
