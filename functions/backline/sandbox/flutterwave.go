package sandbox

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/basaltdev/basalt/functions/backline/provider"
)

// flwError is Flutterwave's error envelope.
func flwError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"status": "error", "message": msg, "data": nil})
}

// flwAuth refuses requests without the secret key, as Flutterwave does.
func (s *Sandbox) flwAuth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !bearer(r, s.cfg.FlutterwaveSecretKey) {
			flwError(w, http.StatusUnauthorized, "Invalid authorization key")
			return
		}
		h(w, r)
	}
}

// flwCreatePayment is Flutterwave Standard: the merchant posts the payment
// and gets a hosted link. The amount is in naira, as a number or string.
func (s *Sandbox) flwCreatePayment(w http.ResponseWriter, r *http.Request) {
	var req struct {
		TxRef       string          `json:"tx_ref"`
		Amount      json.RawMessage `json:"amount"`
		Currency    string          `json:"currency"`
		RedirectURL string          `json:"redirect_url"`
		Customer    struct {
			Email string `json:"email"`
		} `json:"customer"`
		Customizations struct {
			Title string `json:"title"`
		} `json:"customizations"`
		Meta map[string]string `json:"meta"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req); err != nil {
		flwError(w, http.StatusBadRequest, "Invalid request body")
		return
	}
	amount, ok := parseAmount(req.Amount)
	switch {
	case req.TxRef == "":
		flwError(w, http.StatusBadRequest, "tx_ref is required")
		return
	case !ok:
		flwError(w, http.StatusBadRequest, "amount must be a positive number")
		return
	case req.Customer.Email == "":
		flwError(w, http.StatusBadRequest, "customer.email is required")
		return
	case req.RedirectURL == "":
		flwError(w, http.StatusBadRequest, "redirect_url is required")
		return
	}
	if req.Currency == "" {
		req.Currency = "NGN"
	}
	// A tx_ref may be posted again until a payment was attempted with it,
	// then it is spent.
	s.mu.Lock()
	prev := s.byRef[provider.Flutterwave][req.TxRef]
	done := prev != nil && prev.status != ""
	s.mu.Unlock()
	if done {
		flwError(w, http.StatusBadRequest, "Transaction reference already exists")
		return
	}
	t := s.add(&txn{provider: provider.Flutterwave, ref: req.TxRef, amount: amount, currency: req.Currency,
		email: req.Customer.Email, redirect: req.RedirectURL, title: req.Customizations.Title, metadata: req.Meta})
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "message": "Hosted Link",
		"data": map[string]string{"link": s.checkoutURL(t)}})
}

// flwVerifyByReference is how the browser's return is verified (by our
// tx_ref); flwVerifyByID is how webhooks are (by Flutterwave's id).
func (s *Sandbox) flwVerifyByReference(w http.ResponseWriter, r *http.Request) {
	ref := r.URL.Query().Get("tx_ref")
	s.mu.Lock()
	t := s.byRef[provider.Flutterwave][ref]
	s.mu.Unlock()
	s.flwVerify(w, t)
}

func (s *Sandbox) flwVerifyByID(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var t *txn
	if err == nil {
		s.mu.Lock()
		t = s.byTxID[id]
		s.mu.Unlock()
		if t != nil && t.provider != provider.Flutterwave {
			t = nil
		}
	}
	s.flwVerify(w, t)
}

// flwVerify answers like Flutterwave: a transaction exists only once the
// customer attempted to pay, so an unpaid or cancelled checkout is "not
// found".
func (s *Sandbox) flwVerify(w http.ResponseWriter, t *txn) {
	if t == nil {
		flwError(w, http.StatusBadRequest, "No transaction was found for this id")
		return
	}
	c := s.snapshot(t)
	if c.status == "" {
		flwError(w, http.StatusBadRequest, "No transaction was found for this id")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "message": "Transaction fetched successfully",
		"data": flwData(&c)})
}

// flwData is the transaction object of verify responses and webhooks.
func flwData(t *txn) map[string]any {
	processor := "Approved. Successful"
	if t.status != "successful" {
		processor = "Declined"
	}
	return map[string]any{
		"id":                 t.id,
		"tx_ref":             t.ref,
		"flw_ref":            "FLW-MOCK-" + strconv.FormatInt(t.id, 36),
		"device_fingerprint": "N/A",
		"amount":             naira(t.amount),
		"currency":           t.currency,
		"charged_amount":     naira(t.amount),
		"app_fee":            0,
		"merchant_fee":       0,
		"processor_response": processor,
		"auth_model":         "NOAUTH",
		"ip":                 "127.0.0.1",
		"narration":          "Sandbox card payment",
		"status":             t.status,
		"payment_type":       "card",
		"created_at":         t.createdAt.Format(time.RFC3339),
		"account_id":         1,
		"amount_settled":     naira(t.amount),
		"meta":               t.metadata,
		"customer": map[string]any{
			"id": t.id, "name": "Sandbox Customer", "phone_number": "N/A", "email": t.email,
			"created_at": t.createdAt.Format(time.RFC3339),
		},
	}
}
