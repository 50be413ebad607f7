package backline_test

import (
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/basaltdev/basalt/functions/backline/provider"
)

// checkout starts a payment through create-payment and returns its answer.
func (b *testBundle) checkout(token, prov, purpose string, amount any) map[string]any {
	b.t.Helper()
	body := map[string]any{"provider": prov, "purpose": purpose}
	if amount != nil {
		body["amount"] = amount
	}
	status, got := b.call("create-payment", token, body)
	if status != 200 || got["success"] != true {
		b.t.Fatalf("create-payment %v: %d %v", body, status, got)
	}
	return got
}

// verify calls the provider's verify function the way the app does on the
// browser's return.
func (b *testBundle) verify(prov, token, ref string) (int, map[string]any) {
	b.t.Helper()
	if prov == provider.Flutterwave {
		return b.call("flutterwave-verify", token, map[string]any{"action": "verify", "tx_ref": ref, "userId": "ignored", "verification": false})
	}
	return b.call("paystack-verify", token, map[string]any{"reference": ref, "userId": "ignored", "verification": false})
}

// verified reports a verify answer's success in either provider's shape.
func verified(prov string, got map[string]any) bool {
	if prov == provider.Flutterwave {
		return got["success"] == true
	}
	return got["status"] == true
}

func (b *testBundle) balance(userID string) string {
	b.t.Helper()
	return scalar[string](b, `SELECT balance::text FROM public.wallets WHERE user_id = $1`, userID)
}

// TestTopUp runs the whole top-up: checkout, hosted page, the browser's
// return and/or the webhook, and checks the wallet is credited exactly once.
func TestTopUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		prov     string
		webhooks bool
		browser  bool // the browser comes back and the app verifies
	}{
		{"flutterwave, browser returns", provider.Flutterwave, false, true},
		{"paystack, browser returns", provider.Paystack, false, true},
		{"flutterwave, webhook only", provider.Flutterwave, true, false},
		{"paystack, webhook only", provider.Paystack, true, false},
		{"flutterwave, webhook and browser", provider.Flutterwave, true, true},
		{"paystack, webhook and browser", provider.Paystack, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var opts []option
			if !tt.webhooks {
				opts = append(opts, noWebhooks)
			}
			b := setup(t, opts...)
			id, tok := b.signUp("sponsor")
			co := b.checkout(tok, tt.prov, "topup", 5000)
			// Spec section 5: VAT 7.5% of the base plus a flat 1000 fee.
			for k, want := range map[string]float64{"amount": 5000, "vat": 375, "fee": 1000, "total": 6375} {
				if co[k] != want {
					t.Errorf("checkout %s = %v, want %v", k, co[k], want)
				}
			}
			ref := co["tx_ref"].(string)
			back := b.pay(co["checkout_url"].(string), "pay")
			q := back.Query()
			if back.Host != "app.test" || back.Path != "/dashboard" || q.Get("gateway") != tt.prov {
				t.Errorf("return URL = %s", back)
			}
			if tt.prov == provider.Flutterwave && (q.Get("status") != "successful" || q.Get("tx_ref") != ref || q.Get("transaction_id") == "") {
				t.Errorf("flutterwave return query = %v", q)
			}
			if tt.prov == provider.Paystack && (q.Get("reference") != ref || q.Get("trxref") != ref) {
				t.Errorf("paystack return query = %v", q)
			}
			if tt.browser {
				status, got := b.verify(tt.prov, tok, ref)
				if status != 200 || !verified(tt.prov, got) {
					t.Fatalf("verify: %d %v", status, got)
				}
				data := got["data"].(map[string]any)
				if data["session_mismatch"] != false || data["amount"] != 5000.0 {
					t.Errorf("verify data = %v", data)
				}
				if data["already_processed"] != tt.webhooks {
					t.Errorf("already_processed = %v, want %v (webhook first)", data["already_processed"], tt.webhooks)
				}
			}
			if got := b.balance(id); got != "5000.00" {
				t.Fatalf("balance = %s, want 5000.00", got)
			}
			// Replays change nothing: the same return, the same webhook.
			status, got := b.verify(tt.prov, tok, ref)
			if status != 200 || got["data"].(map[string]any)["already_processed"] != true {
				t.Errorf("second verify: %d %v", status, got)
			}
			if got := b.balance(id); got != "5000.00" {
				t.Fatalf("balance after replay = %s, want 5000.00", got)
			}
			if n := scalar[int](b, `SELECT count(*)::int FROM public.payments WHERE tx_ref = $1 AND status = 'successful'`, ref); n != 1 {
				t.Errorf("%d successful payment rows, want 1", n)
			}
		})
	}
}

// TestConcurrentVerify sends the browser's return many times at once: the
// wallet is credited once.
func TestConcurrentVerify(t *testing.T) {
	t.Parallel()
	for _, prov := range []string{provider.Flutterwave, provider.Paystack} {
		t.Run(prov, func(t *testing.T) {
			t.Parallel()
			b := setup(t, noWebhooks)
			id, tok := b.signUp("sponsor")
			co := b.checkout(tok, prov, "topup", 2500)
			ref := co["tx_ref"].(string)
			b.pay(co["checkout_url"].(string), "pay")
			var wg sync.WaitGroup
			fresh := make(chan bool, 16)
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					status, got := b.verify(prov, tok, ref)
					if status == 200 && verified(prov, got) {
						fresh <- got["data"].(map[string]any)["already_processed"] == false
					}
				}()
			}
			wg.Wait()
			close(fresh)
			first, ok := 0, 0
			for f := range fresh {
				ok++
				if f {
					first++
				}
			}
			if ok != 16 || first != 1 {
				t.Errorf("%d successful answers of 16, %d not already processed; want 16 and 1", ok, first)
			}
			if got := b.balance(id); got != "2500.00" {
				t.Errorf("balance = %s, want 2500.00", got)
			}
		})
	}
}

func TestDeclinedPayment(t *testing.T) {
	t.Parallel()
	for _, prov := range []string{provider.Flutterwave, provider.Paystack} {
		t.Run(prov, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			id, tok := b.signUp("sponsor")
			co := b.checkout(tok, prov, "topup", 5000)
			back := b.pay(co["checkout_url"].(string), "fail")
			if prov == provider.Flutterwave && back.Query().Get("status") != "failed" {
				t.Errorf("return query = %v, want status=failed", back.Query())
			}
			status, got := b.verify(prov, tok, co["tx_ref"].(string))
			if status != 200 || verified(prov, got) {
				t.Errorf("verify of a declined card: %d %v, want 200 and no success", status, got)
			}
			if bal := b.balance(id); bal != "0.00" {
				t.Errorf("balance = %s, want 0.00", bal)
			}
		})
	}
}

// TestSessionMismatch: the browser comes back signed in as someone else, or
// signed out. Nothing is credited to anyone until the payer's own session
// (or the provider's webhook) completes the payment.
func TestSessionMismatch(t *testing.T) {
	t.Parallel()
	for _, prov := range []string{provider.Flutterwave, provider.Paystack} {
		t.Run(prov, func(t *testing.T) {
			t.Parallel()
			b := setup(t, noWebhooks)
			payer, payerTok := b.signUp("sponsor")
			other, otherTok := b.signUp("fan")
			co := b.checkout(payerTok, prov, "topup", 1000)
			ref := co["tx_ref"].(string)
			b.pay(co["checkout_url"].(string), "pay")
			for _, tok := range []string{otherTok, b.keys.AnonKey} {
				status, got := b.verify(prov, tok, ref)
				if status != 200 || verified(prov, got) || got["data"].(map[string]any)["session_mismatch"] != true {
					t.Fatalf("verify from the wrong session: %d %v, want session_mismatch", status, got)
				}
				if got["message"] != "Please ensure you're logged in with the same account that started the payment." {
					t.Errorf("message = %q", got["message"])
				}
			}
			if bal := b.balance(other); bal != "0.00" {
				t.Errorf("other user's balance = %s, want 0.00", bal)
			}
			if bal := b.balance(payer); bal != "0.00" {
				t.Errorf("payer credited from another session: %s", bal)
			}
			// Back in the right account, the same reference completes.
			status, got := b.verify(prov, payerTok, ref)
			if status != 200 || !verified(prov, got) {
				t.Fatalf("verify as the payer: %d %v", status, got)
			}
			if bal := b.balance(payer); bal != "1000.00" {
				t.Errorf("payer's balance = %s, want 1000.00", bal)
			}
		})
	}
}

// TestVerificationPurchase buys the verification badge: the fee is fixed
// whatever the client asks, and the profile is verified for a year.
func TestVerificationPurchase(t *testing.T) {
	t.Parallel()
	b := setup(t, noWebhooks)
	id, tok := b.signUp("artist")
	co := b.checkout(tok, provider.Flutterwave, "verification", 5)
	if co["amount"] != 60000.0 || co["total"] != 65500.0 {
		t.Fatalf("verification checkout = %v, want amount 60000 total 65500", co)
	}
	back := b.pay(co["checkout_url"].(string), "pay")
	if back.Query().Get("verification") != "true" {
		t.Errorf("return URL %s lacks verification=true", back)
	}
	status, got := b.call("flutterwave-verify", tok, map[string]any{"action": "verify", "tx_ref": co["tx_ref"], "userId": id, "verification": true})
	if status != 200 || got["success"] != true {
		t.Fatalf("verify: %d %v", status, got)
	}
	if !scalar[bool](b, `SELECT is_verified FROM public.public_profiles WHERE id = $1`, id) {
		t.Error("profile not verified")
	}
	days := scalar[float64](b, `SELECT extract(epoch FROM max(expires_at) - now()) / 86400 FROM public.verifications WHERE user_id = $1`, id)
	if days < 364 || days > 366.01 {
		t.Errorf("verification lasts %.1f days, want a year", days)
	}
	if bal := b.balance(id); bal != "0.00" {
		t.Errorf("a verification purchase credited the wallet: %s", bal)
	}
}

// TestConcurrentVerificationPurchases: two verification checkouts opened at
// once (both allowed: neither is paid yet), both paid, and both returns
// verified at the same moment. The badge is extended once, by a year; the
// other payment is credited to the wallet and its answer says so.
func TestConcurrentVerificationPurchases(t *testing.T) {
	t.Parallel()
	b := setup(t, noWebhooks)
	id, tok := b.signUp("artist")
	body := map[string]any{"provider": provider.Flutterwave, "purpose": "verification"}
	checkouts := make([]map[string]any, 2)
	var wg sync.WaitGroup
	for i := range checkouts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, checkouts[i] = b.call("create-payment", tok, body)
		}()
	}
	wg.Wait()
	for _, co := range checkouts {
		if co["success"] != true {
			t.Fatalf("checkout: %v", co)
		}
		b.pay(co["checkout_url"].(string), "pay")
	}

	answers := make([]map[string]any, 2)
	start := make(chan struct{})
	for i, co := range checkouts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, answers[i] = b.call("flutterwave-verify", tok, map[string]any{"action": "verify", "tx_ref": co["tx_ref"],
				"userId": id, "verification": true})
		}()
	}
	close(start)
	wg.Wait()
	granted, credited := 0, 0
	for _, a := range answers {
		if a["success"] != true {
			t.Fatalf("verify: %v", a)
		}
		if a["data"].(map[string]any)["credited_to_wallet"] == true {
			credited++
			if msg, _ := a["message"].(string); !strings.HasSuffix(msg, "The ₦65,500 you paid, VAT and fees included, has been refunded to your wallet.") {
				t.Errorf("credited payment's message %q", msg)
			}
		} else {
			granted++
		}
	}
	if granted != 1 || credited != 1 {
		t.Fatalf("%d verified, %d credited to the wallet; want 1 and 1: %v", granted, credited, answers)
	}
	if n := scalar[int64](b, `SELECT count(*) FROM public.verifications WHERE user_id = $1`, id); n != 1 {
		t.Errorf("%d verification rows, want 1", n)
	}
	days := scalar[float64](b, `SELECT extract(epoch FROM verification_expires_at - now()) / 86400 FROM public.public_profiles WHERE id = $1`, id)
	if days < 364 || days > 366.01 {
		t.Errorf("verified for %.1f days, want a year", days)
	}
	if bal := b.balance(id); bal != "65500.00" {
		t.Errorf("balance %s, want the second payment's 65500.00, VAT and fee included", bal)
	}
}

// TestWebhookBodyNotTrusted: a correctly signed webhook that claims a
// successful charge the provider does not confirm credits nothing.
func TestWebhookBodyNotTrusted(t *testing.T) {
	t.Parallel()
	b := setup(t, noWebhooks)
	id, tok := b.signUp("sponsor")
	co := b.checkout(tok, provider.Paystack, "topup", 5000)
	ref := co["tx_ref"].(string)
	body := `{"event":"charge.success","data":{"reference":"` + ref + `","status":"success","amount":500000}}`
	req := webhookRequest(t, b.fn.URL+"/paystack-webhook", body,
		map[string]string{"x-paystack-signature": provider.PaystackSignature([]byte(body), psKey)})
	status, got := b.do(req)
	if status != 200 || got["ignored"] != "transaction not successful" {
		t.Errorf("webhook for an unpaid checkout: %d %v", status, got)
	}
	if bal := b.balance(id); bal != "0.00" {
		t.Errorf("balance = %s, want 0.00", bal)
	}
}

// TestDevSandbox runs a top-up the way `basalt dev` serves it: the checkout
// page is the function "sandbox", the verify calls stay in process and the
// webhooks come back through the functions service.
func TestDevSandbox(t *testing.T) {
	t.Parallel()
	b := setup(t, devSandbox)
	id, tok := b.signUp("sponsor")
	co := b.checkout(tok, provider.Paystack, "topup", 3000)
	link, _ := url.Parse(co["checkout_url"].(string))
	if link.Host != mustHost(t, b.fn.URL) || link.Path[:len("/sandbox/checkout/")] != "/sandbox/checkout/" {
		t.Fatalf("checkout_url = %s, want the sandbox function", link)
	}
	b.pay(link.String(), "pay")
	// The webhook credited the wallet before the redirect.
	if bal := b.balance(id); bal != "3000.00" {
		t.Fatalf("balance after the sandbox webhook = %s, want 3000.00", bal)
	}
	status, got := b.verify(provider.Paystack, tok, co["tx_ref"].(string))
	if status != 200 || got["status"] != true {
		t.Errorf("verify in dev: %d %v", status, got)
	}
}

func mustHost(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// TestUnderpaidCheckout: a checkout for the right reference but a smaller
// amount (a tampered payment link) is refused, whatever the provider says
// about its status.
func TestUnderpaidCheckout(t *testing.T) {
	t.Parallel()
	b := setup(t, noWebhooks)
	id, tok := b.signUp("sponsor")
	co := b.checkout(tok, provider.Flutterwave, "topup", 5000)
	ref := co["tx_ref"].(string)
	flw := provider.NewFlutterwave(b.prov.URL+"/flutterwave", flwKey, nil)
	link, err := flw.CreatePayment(b.ctx, provider.Checkout{Reference: ref, Amount: "100", Currency: "NGN",
		Email: "x@example.com", RedirectURL: "http://app.test/dashboard"})
	if err != nil {
		t.Fatal(err)
	}
	b.pay(link, "pay")
	status, got := b.verify(provider.Flutterwave, tok, ref)
	if status != 200 || got["success"] != false || got["message"] != "Amount paid (100) does not match the amount due (6375)" {
		t.Errorf("verify of an underpaid checkout: %d %v", status, got)
	}
	if bal := b.balance(id); bal != "0.00" {
		t.Errorf("balance = %s, want 0.00", bal)
	}
}

// TestReturnBeforePaying: the app verifies a Paystack reference whose
// checkout is still open; nothing is recorded, and paying afterwards
// completes it.
func TestReturnBeforePaying(t *testing.T) {
	t.Parallel()
	b := setup(t, noWebhooks)
	id, tok := b.signUp("sponsor")
	co := b.checkout(tok, provider.Paystack, "topup", 1500)
	ref := co["tx_ref"].(string)
	status, got := b.verify(provider.Paystack, tok, ref)
	if status != 200 || got["status"] != false || got["message"] != "Payment is not complete yet" {
		t.Fatalf("verify of an open checkout: %d %v", status, got)
	}
	if st := scalar[string](b, `SELECT status FROM public.payments WHERE tx_ref = $1`, ref); st != "pending" {
		t.Errorf("payment status = %s, want pending", st)
	}
	b.pay(co["checkout_url"].(string), "pay")
	if status, got := b.verify(provider.Paystack, tok, ref); status != 200 || got["status"] != true {
		t.Fatalf("verify after paying: %d %v", status, got)
	}
	if bal := b.balance(id); bal != "1500.00" {
		t.Errorf("balance = %s, want 1500.00", bal)
	}
}
