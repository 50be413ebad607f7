package sandbox

import (
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"strconv"

	"github.com/basaltdev/basalt/functions/backline/provider"
	"github.com/basaltdev/basalt/internal/lazy"
)

// page is the hosted checkout. html/template escapes every value, so a
// title or e-mail from the API cannot inject markup. The form posts back to
// the same URL; the button pressed is the customer's choice.
var page = &lazy.Value[*template.Template]{New: func() *template.Template {
	return template.Must(template.New("checkout").Parse(checkoutHTML))
}}

// checkoutHTML is the page's template.
const checkoutHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sandbox checkout</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f4f5;margin:0;display:grid;place-items:center;min-height:100vh}
main{background:#fff;border-radius:12px;box-shadow:0 2px 12px #0002;padding:2rem;width:min(24rem,90vw)}
.banner{background:#fef3c7;color:#92400e;border-radius:6px;padding:.5rem .75rem;font-size:.85rem}
.amount{font-size:2rem;font-weight:700;margin:.5rem 0}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;font-size:.9rem;color:#444}
dd{margin:0;word-break:break-all}
button{width:100%;padding:.75rem;border:0;border-radius:8px;font-size:1rem;margin-top:.5rem;cursor:pointer}
.pay{background:#16a34a;color:#fff}.fail{background:#e4e4e7}.cancel{background:none;color:#555}
</style></head><body><main>
<p class="banner">Sandbox {{.Provider}} checkout. No real money moves.</p>
<h1>{{if .Title}}{{.Title}}{{else}}Payment{{end}}</h1>
<p class="amount">{{.Currency}} {{.Amount}}</p>
<dl><dt>Email</dt><dd>{{.Email}}</dd><dt>Reference</dt><dd>{{.Reference}}</dd><dt>Status</dt><dd>{{.Status}}</dd></dl>
{{if .Open}}<form method="post">
<button class="pay" name="action" value="pay">Pay {{.Currency}} {{.Amount}}</button>
<button class="fail" name="action" value="fail">Decline card</button>
<button class="cancel" name="action" value="cancel">Cancel</button>
</form>{{else}}<p>This payment is closed.</p>{{end}}
</main></body></html>`

func (s *Sandbox) lookup(id string) *txn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byID[id]
}

// open reports whether the checkout can still be paid.
func open(t *txn) bool {
	return t.status == "" || t.status == "abandoned"
}

func (s *Sandbox) checkoutPage(w http.ResponseWriter, r *http.Request) {
	t := s.lookup(r.PathValue("id"))
	if t == nil {
		http.Error(w, "Checkout not found", http.StatusNotFound)
		return
	}
	c := s.snapshot(t)
	name := map[string]string{provider.Flutterwave: "Flutterwave", provider.Paystack: "Paystack"}[c.provider]
	status := c.status
	if status == "" {
		status = "pending"
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = page.Get().Execute(w, map[string]any{"Provider": name, "Title": c.title, "Currency": c.currency,
		"Amount": string(naira(c.amount)), "Email": c.email, "Reference": c.ref, "Status": status, "Open": open(&c)})
}

// checkoutSubmit ends the payment as the customer chose, delivers the
// webhook, then redirects the browser back with the provider's parameters.
func (s *Sandbox) checkoutSubmit(w http.ResponseWriter, r *http.Request) {
	t := s.lookup(r.PathValue("id"))
	if t == nil {
		http.Error(w, "Checkout not found", http.StatusNotFound)
		return
	}
	action := r.FormValue("action")
	s.mu.Lock()
	if !open(t) {
		s.mu.Unlock()
		http.Error(w, "This payment is closed", http.StatusConflict)
		return
	}
	// Each provider's words for the outcome.
	switch {
	case action == "pay" && t.provider == provider.Flutterwave:
		t.status = "successful"
	case action == "pay":
		t.status = "success"
	case action == "fail":
		t.status = "failed"
	case action == "cancel" && t.provider == provider.Flutterwave:
		// No transaction exists at Flutterwave for a closed modal.
	case action == "cancel":
		t.status = "abandoned"
	default:
		s.mu.Unlock()
		http.Error(w, "Unknown action", http.StatusBadRequest)
		return
	}
	if action == "pay" {
		t.paidAt = s.now().UTC()
	}
	c := *t
	s.mu.Unlock()

	// As the providers do, the webhook goes out before the browser is sent
	// back, so the return may find the payment already completed.
	back, err := url.Parse(c.redirect)
	if err != nil {
		http.Error(w, "Invalid redirect URL", http.StatusBadRequest)
		return
	}
	q := back.Query()
	switch c.provider {
	case provider.Flutterwave:
		if action != "cancel" {
			body, _ := json.Marshal(map[string]any{"event": "charge.completed", "event.type": "CARD_TRANSACTION", "data": flwData(&c)})
			s.sendWebhook(r.Context(), s.cfg.FlutterwaveWebhookURL, body, http.Header{"Verif-Hash": {s.cfg.FlutterwaveSecretHash}})
		}
		q.Set("status", map[string]string{"pay": "successful", "fail": "failed", "cancel": "cancelled"}[action])
		q.Set("tx_ref", c.ref)
		if action != "cancel" {
			q.Set("transaction_id", strconv.FormatInt(c.id, 10))
		}
	case provider.Paystack:
		if action == "pay" {
			body, _ := json.Marshal(map[string]any{"event": "charge.success", "data": psData(&c)})
			sig := provider.PaystackSignature(body, s.cfg.PaystackSecretKey)
			s.sendWebhook(r.Context(), s.cfg.PaystackWebhookURL, body, http.Header{"X-Paystack-Signature": {sig}})
		}
		q.Set("trxref", c.ref)
		q.Set("reference", c.ref)
	}
	back.RawQuery = q.Encode()
	http.Redirect(w, r, back.String(), http.StatusSeeOther)
}
