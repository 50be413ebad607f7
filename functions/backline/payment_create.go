package backline

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/backline/provider"
	"github.com/basaltdev/basalt/internal/httpx"
)

// createRequest starts a card payment.
type createRequest struct {
	Provider string      `json:"provider"` // flutterwave | paystack
	Purpose  string      `json:"purpose"`  // topup | verification
	Amount   json.Number `json:"amount"`   // top-up base in naira; the verification fee is fixed
}

// createdPayment is create_payment's answer: the checkout breakdown.
type createdPayment struct {
	TxRef    string      `json:"tx_ref"`
	Amount   json.Number `json:"amount"`
	VAT      json.Number `json:"vat"`
	Fee      json.Number `json:"fee"`
	Total    json.Number `json:"total"`
	Purpose  string      `json:"purpose"`
	Provider string      `json:"provider"`
}

// failure is the {success:false, error} answer of the payment functions.
func failure(status int, msg string, cause error) error {
	return functions.NewError(status, map[string]any{"success": false, "error": msg}, cause)
}

// createPayment records a pending payment as the caller (create_payment
// computes the amount, VAT and fee from the settings and picks the tx_ref),
// then opens the provider's hosted checkout for the total. The browser is
// sent to checkout_url and comes back to the app's return path.
func (b *Backline) createPayment(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost {
		return failure(http.StatusMethodNotAllowed, "Method not allowed", nil)
	}
	var req createRequest
	if err := httpx.DecodeJSON(r, maxBody, &req); err != nil {
		return failure(http.StatusBadRequest, "Invalid JSON body", err)
	}
	if req.Provider != provider.Flutterwave && req.Provider != provider.Paystack {
		return failure(http.StatusBadRequest, "provider must be flutterwave or paystack", nil)
	}
	if req.Purpose != "topup" && req.Purpose != "verification" {
		return failure(http.StatusBadRequest, "purpose must be topup or verification", nil)
	}
	var amount *string
	if req.Amount != "" {
		a, err := provider.Decimal(req.Amount)
		if err != nil {
			return failure(http.StatusBadRequest, "amount must be a number", err)
		}
		amount = &a
	}
	if !b.configured(req.Provider) {
		return failure(http.StatusServiceUnavailable, "Card payments with "+req.Provider+" are not configured", nil)
	}
	claims := user(r)
	if claims == nil {
		return failure(http.StatusUnauthorized, "Authentication required", nil)
	}

	// The pending payment is recorded before the provider hears of it: a
	// webhook or return for this tx_ref always finds its row, and the amount
	// due comes from the settings, not from the request.
	var p createdPayment
	err := b.asCaller(r, func(tx pgx.Tx) error {
		doc, err := callJSON(r.Context(), tx, `SELECT public.create_payment($1::text, $2::text, $3::numeric)`,
			req.Provider, req.Purpose, amount)
		if err != nil {
			return err
		}
		return json.Unmarshal(doc, &p)
	})
	if err != nil {
		if msg, ok := sqlMessage(err); ok {
			return failure(http.StatusOK, msg, nil)
		}
		if badInput(err) {
			return failure(http.StatusBadRequest, "Invalid payment request", err)
		}
		return fmt.Errorf("create_payment: %w", err)
	}
	if p.TxRef == "" || p.Total == "" {
		return fmt.Errorf("create_payment returned no tx_ref or total")
	}
	total, err := provider.Decimal(p.Total)
	if err != nil {
		return fmt.Errorf("create_payment total: %w", err)
	}

	email, _ := claims.Map["email"].(string)
	if email == "" {
		// Both providers require an e-mail; phone-only accounts get a
		// stable placeholder on a reserved domain.
		email = claims.Subject + "@users.invalid"
	}
	co := provider.Checkout{Reference: p.TxRef, Amount: total, Currency: "NGN", Email: email,
		RedirectURL: b.returnURL(req.Provider, req.Purpose), Title: "Backline",
		Metadata: map[string]string{"user_id": claims.Subject, "purpose": req.Purpose}}
	var link string
	if req.Provider == provider.Flutterwave {
		link, err = b.flw.CreatePayment(r.Context(), co)
	} else {
		link, err = b.ps.Initialize(r.Context(), co)
	}
	// The payment row stays pending; nothing was charged, and an unused
	// tx_ref completes nothing.
	if err != nil {
		b.log.ErrorContext(r.Context(), "start checkout", "provider", req.Provider, "tx_ref", p.TxRef, "err", err)
		return failure(http.StatusBadGateway, "Could not start the payment. Please try again.", err)
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{
		"success": true, "checkout_url": link, "tx_ref": p.TxRef, "amount": p.Amount, "vat": p.VAT,
		"fee": p.Fee, "total": p.Total, "purpose": p.Purpose, "provider": req.Provider,
	})
	return nil
}

// returnURL is where the provider sends the browser back. The app tells the
// providers apart by gateway=…, and verification payments by
// verification=true (spec section 4, payment return handling); the provider
// appends its own parameters.
func (b *Backline) returnURL(prov, purpose string) string {
	u, err := url.Parse(b.cfg.SiteURL)
	if err != nil { // validated in New
		return b.cfg.SiteURL
	}
	u = u.JoinPath(b.cfg.ReturnPath)
	q := url.Values{"gateway": {prov}}
	if purpose == "verification" {
		q.Set("verification", "true")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// configured reports whether a provider has a secret key.
func (b *Backline) configured(prov string) bool {
	switch prov {
	case provider.Flutterwave:
		return b.cfg.Flutterwave.SecretKey != ""
	case provider.Paystack:
		return b.cfg.Paystack.SecretKey != ""
	}
	return false
}
