package backline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/backline/provider"
	"github.com/basaltdev/basalt/internal/httpx"
)

// completion is complete_payment's answer.
type completion struct {
	Success          bool        `json:"success"`
	Message          string      `json:"message"`
	AlreadyProcessed bool        `json:"already_processed"`
	SessionMismatch  bool        `json:"session_mismatch"`
	Amount           json.Number `json:"amount"`
	// CreditedToWallet: a verification payment that arrived while a
	// verification was already valid went to the wallet instead.
	CreditedToWallet bool `json:"credited_to_wallet"`
}

// errRefused wraps a business refusal raised by complete_payment.
type errRefused struct{ msg string }

func (e *errRefused) Error() string { return e.msg }

// complete hands a verified provider transaction to complete_payment, which
// credits the wallet or grants verification exactly once per reference and
// compares the paying account with userID (nil: no browser session, as for
// webhooks). It runs as service_role: the data comes from the provider's
// verify API over an authenticated channel, never from the browser.
func (b *Backline) complete(ctx context.Context, r *http.Request, tx *provider.Transaction, userID *string) (*completion, error) {
	status := strings.ToLower(tx.Status)
	if tx.Successful() {
		status = "successful"
	}
	raw := tx.Raw
	if len(raw) == 0 {
		raw = json.RawMessage("null")
	}
	var c completion
	err := b.asService(ctx, r, func(t pgx.Tx) error {
		doc, err := callJSON(ctx, t, `SELECT public.complete_payment($1::text, $2::text, $3::uuid, $4::numeric, $5::text, $6::jsonb)`,
			tx.Provider, tx.Reference, userID, tx.Amount, status, string(raw))
		if err != nil {
			return err
		}
		return json.Unmarshal(doc, &c)
	})
	if err != nil {
		if msg, ok := sqlMessage(err); ok {
			return nil, &errRefused{msg}
		}
		return nil, fmt.Errorf("complete_payment %s %s: %w", tx.Provider, tx.Reference, err)
	}
	return &c, nil
}

// sessionMismatchMessage is the spec's text for a return to another account.
const sessionMismatchMessage = "Please ensure you're logged in with the same account that started the payment."

// verifyOutcome is what both verify functions report, before each shapes
// it into its provider's response.
type verifyOutcome struct {
	status    int // HTTP status
	success   bool
	message   string
	detail    string
	amount    json.Number
	mismatch  bool
	processed bool
	credited  bool // a verification payment credited to the wallet
	provStat  string
}

// verifyPayment is the shared path of flutterwave-verify and
// paystack-verify: ask the provider, check the answer matches what was
// asked, and let SQL complete the payment. Every doubt fails closed.
func (b *Backline) verifyPayment(r *http.Request, prov, ref string,
	lookup func(context.Context, string) (*provider.Transaction, error)) verifyOutcome {
	ctx := r.Context()
	if !b.configured(prov) {
		return verifyOutcome{status: http.StatusServiceUnavailable, message: "Card payments are not configured",
			detail: prov + " has no secret key"}
	}
	tx, err := lookup(ctx, ref)
	switch {
	case errors.Is(err, provider.ErrNotFound):
		return verifyOutcome{status: http.StatusOK, message: "Payment not found",
			detail: "The payment provider has no transaction with this reference"}
	case err != nil:
		b.log.ErrorContext(r.Context(), "verify payment", "provider", prov, "reference", ref, "err", err)
		return verifyOutcome{status: http.StatusBadGateway, message: "Failed to verify payment",
			detail: "The payment provider could not be reached"}
	case tx.Reference != ref:
		b.log.ErrorContext(r.Context(), "provider answered for another reference", "provider", prov, "asked", ref, "got", tx.Reference)
		return verifyOutcome{status: http.StatusOK, message: "Failed to verify payment", detail: "Reference mismatch"}
	case !strings.EqualFold(tx.Currency, "NGN"):
		return verifyOutcome{status: http.StatusOK, message: "Failed to verify payment",
			detail: "Unexpected currency " + tx.Currency, provStat: tx.Status}
	}
	// A payment still in progress is not a failure: nothing is recorded, so
	// a later return or the webhook can complete it.
	if tx.Pending() {
		return verifyOutcome{status: http.StatusOK, message: "Payment is not complete yet",
			detail: "Payment was not successful: " + tx.Status, provStat: tx.Status}
	}
	// The paying account is compared with the signed-in one; the userId the
	// browser sends is not trusted. Without a signed-in user there is
	// nothing to compare with: the browser path credits only its owner's
	// session (a webhook credits the rest).
	caller := user(r)
	if caller == nil {
		return verifyOutcome{status: http.StatusOK, message: sessionMismatchMessage, detail: "No signed-in user",
			mismatch: true, provStat: tx.Status}
	}
	c, err := b.complete(ctx, r, tx, &caller.Subject)
	var refused *errRefused
	switch {
	case errors.As(err, &refused):
		return verifyOutcome{status: http.StatusOK, message: refused.msg, detail: refused.msg, provStat: tx.Status}
	case err != nil:
		b.log.ErrorContext(r.Context(), "complete payment", "provider", prov, "reference", ref, "err", err)
		return verifyOutcome{status: http.StatusInternalServerError, message: "Failed to verify payment",
			detail: "The payment could not be recorded"}
	}
	out := verifyOutcome{status: http.StatusOK, success: c.Success && tx.Successful(), message: c.Message,
		amount: c.Amount, mismatch: c.SessionMismatch, processed: c.AlreadyProcessed, credited: c.CreditedToWallet,
		provStat: tx.Status}
	if out.amount == "" {
		out.amount = json.Number(tx.Amount)
	}
	if !tx.Successful() {
		out.detail = "Payment was not successful: " + tx.Status
		if out.message == "" {
			out.message = out.detail
		}
	} else if !out.success && out.detail == "" {
		out.detail = out.message
	}
	return out
}

// flutterwaveVerifyRequest is the body the app sends when the browser comes
// back from Flutterwave.
type flutterwaveVerifyRequest struct {
	Action       string          `json:"action"`
	TxRef        string          `json:"tx_ref"`
	UserID       string          `json:"userId"`
	Verification json.RawMessage `json:"verification"`
}

// flutterwaveVerify answers {success, message, error_detail, data: {amount,
// session_mismatch}}; business outcomes are HTTP 200.
func (b *Backline) flutterwaveVerify(w http.ResponseWriter, r *http.Request) error {
	fail := func(status int, msg, detail string) error {
		return functions.NewError(status, map[string]any{"success": false, "message": msg, "error_detail": detail,
			"data": map[string]any{"amount": 0, "session_mismatch": false}}, nil)
	}
	if r.Method != http.MethodPost {
		return fail(http.StatusMethodNotAllowed, "Method not allowed", "use POST")
	}
	var req flutterwaveVerifyRequest
	if err := httpx.DecodeJSON(r, maxBody, &req); err != nil {
		return fail(http.StatusBadRequest, "Invalid JSON body", err.Error())
	}
	if req.Action != "verify" {
		return fail(http.StatusBadRequest, "Unsupported action", fmt.Sprintf("action must be \"verify\", got %q", req.Action))
	}
	if req.TxRef == "" || len(req.TxRef) > 200 {
		return fail(http.StatusBadRequest, "tx_ref is required", "missing tx_ref")
	}
	o := b.verifyPayment(r, provider.Flutterwave, req.TxRef, b.flw.VerifyByReference)
	var detail any
	if o.detail != "" {
		detail = o.detail
	}
	amount := any(o.amount)
	if o.amount == "" {
		amount = 0
	}
	httpx.WriteJSON(w, o.status, map[string]any{
		"success": o.success, "message": o.message, "error_detail": detail,
		"data": map[string]any{"amount": amount, "session_mismatch": o.mismatch, "already_processed": o.processed,
			"credited_to_wallet": o.credited, "status": o.provStat, "tx_ref": req.TxRef},
	})
	return nil
}

// paystackVerifyRequest is the body the app sends when the browser comes
// back from Paystack.
type paystackVerifyRequest struct {
	Reference    string          `json:"reference"`
	UserID       string          `json:"userId"`
	Verification json.RawMessage `json:"verification"`
}

// paystackVerify answers {status, message} in Paystack's own style (status
// is a boolean), plus data with the amount and the session check.
func (b *Backline) paystackVerify(w http.ResponseWriter, r *http.Request) error {
	fail := func(status int, msg string) error {
		return functions.NewError(status, map[string]any{"status": false, "message": msg}, nil)
	}
	if r.Method != http.MethodPost {
		return fail(http.StatusMethodNotAllowed, "Method not allowed")
	}
	var req paystackVerifyRequest
	if err := httpx.DecodeJSON(r, maxBody, &req); err != nil {
		return fail(http.StatusBadRequest, "Invalid JSON body")
	}
	if req.Reference == "" || len(req.Reference) > 200 {
		return fail(http.StatusBadRequest, "reference is required")
	}
	o := b.verifyPayment(r, provider.Paystack, req.Reference, b.ps.Verify)
	msg := o.message
	if o.success && !o.mismatch {
		msg = "Payment successful! Your wallet has been topped up."
		if o.message != "" {
			msg = o.message
		}
	}
	amount := any(o.amount)
	if o.amount == "" {
		amount = 0
	}
	httpx.WriteJSON(w, o.status, map[string]any{
		"status": o.success, "message": msg,
		"data": map[string]any{"amount": amount, "session_mismatch": o.mismatch, "already_processed": o.processed,
			"credited_to_wallet": o.credited, "status": o.provStat, "reference": req.Reference, "error_detail": o.detail},
	})
	return nil
}
