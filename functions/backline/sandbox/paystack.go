package sandbox

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/basaltdev/basalt/functions/backline/provider"
)

// psError is Paystack's error envelope.
func psError(w http.ResponseWriter, status int, msg, code string) {
	body := map[string]any{"status": false, "message": msg}
	if code != "" {
		body["code"] = code
		body["type"] = "validation_error"
	}
	writeJSON(w, status, body)
}

// psAuth refuses requests without the secret key, as Paystack does.
func (s *Sandbox) psAuth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !bearer(r, s.cfg.PaystackSecretKey) {
			psError(w, http.StatusUnauthorized, "Invalid key", "")
			return
		}
		h(w, r)
	}
}

func (s *Sandbox) psInitialize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Email       string            `json:"email"`
		Amount      json.RawMessage   `json:"amount"` // kobo, number or string
		Currency    string            `json:"currency"`
		Reference   string            `json:"reference"`
		CallbackURL string            `json:"callback_url"`
		Metadata    map[string]string `json:"metadata"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req); err != nil {
		psError(w, http.StatusBadRequest, "Invalid request body", "")
		return
	}
	// Paystack takes whole kobo and generates a reference when none is
	// given; a reference is single-use across the integration.
	koboAmount, ok := parseAmount(req.Amount)
	switch {
	case req.Email == "":
		psError(w, http.StatusBadRequest, "Email is required", "")
		return
	case !ok || !koboAmount.IsInt():
		psError(w, http.StatusBadRequest, "Invalid Amount Sent", "")
		return
	case req.Reference == "":
		req.Reference = randomHex(5)
	}
	if req.Currency == "" {
		req.Currency = "NGN"
	}
	s.mu.Lock()
	_, dup := s.byRef[provider.Paystack][req.Reference]
	s.mu.Unlock()
	if dup {
		psError(w, http.StatusBadRequest, "Duplicate Transaction Reference", "duplicate_reference")
		return
	}
	amount := koboAmount.Quo(koboAmount, bigHundred())
	// Paystack creates the transaction at initialize time with status
	// "abandoned"; it becomes "success" or "failed" when the customer pays.
	t := s.add(&txn{provider: provider.Paystack, ref: req.Reference, amount: amount, currency: req.Currency,
		email: req.Email, redirect: req.CallbackURL, metadata: req.Metadata, status: "abandoned"})
	writeJSON(w, http.StatusOK, map[string]any{"status": true, "message": "Authorization URL created",
		"data": map[string]string{"authorization_url": s.checkoutURL(t), "access_code": t.checkoutID, "reference": t.ref}})
}

// psVerify answers 200 for any known reference, whatever its status (the
// caller must read data.status), and 400 transaction_not_found otherwise.
func (s *Sandbox) psVerify(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	t := s.byRef[provider.Paystack][r.PathValue("reference")]
	s.mu.Unlock()
	if t == nil {
		psError(w, http.StatusBadRequest, "Transaction reference not found", "transaction_not_found")
		return
	}
	c := s.snapshot(t)
	writeJSON(w, http.StatusOK, map[string]any{"status": true, "message": "Verification successful", "data": psData(&c)})
}

// psData is the transaction object of verify responses and webhooks: the
// fields of Paystack's own, amounts in kobo, with fixed test card details.
func psData(t *txn) map[string]any {
	gateway := map[string]string{"success": "Successful", "failed": "Declined", "abandoned": "The transaction was not completed"}[t.status]
	var paidAt any
	if !t.paidAt.IsZero() {
		paidAt = t.paidAt.Format(time.RFC3339)
	}
	return map[string]any{
		"id":               t.id,
		"domain":           "test",
		"status":           t.status,
		"reference":        t.ref,
		"receipt_number":   nil,
		"amount":           kobo(t.amount),
		"message":          nil,
		"gateway_response": gateway,
		"paid_at":          paidAt,
		"paidAt":           paidAt,
		"created_at":       t.createdAt.Format(time.RFC3339),
		"createdAt":        t.createdAt.Format(time.RFC3339),
		"channel":          "card",
		"currency":         t.currency,
		"ip_address":       "127.0.0.1",
		"metadata":         t.metadata,
		"fees":             0,
		"requested_amount": kobo(t.amount),
		"customer": map[string]any{
			"id": t.id, "first_name": nil, "last_name": nil, "email": t.email,
			"customer_code": "CUS_sandbox", "phone": nil, "metadata": nil, "risk_action": "default",
		},
		"authorization": map[string]any{
			"authorization_code": "AUTH_sandbox", "bin": "408408", "last4": "4081", "exp_month": "12",
			"exp_year": "2030", "channel": "card", "card_type": "visa", "bank": "TEST BANK", "country_code": "NG",
			"brand": "visa", "reusable": true, "signature": "SIG_sandbox", "account_name": nil,
		},
	}
}
