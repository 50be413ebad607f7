package backline

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/backline/provider"
	"github.com/basaltdev/basalt/internal/httpx"
)

// maxWebhookBody bounds webhook payloads (providers send a few KB).
const maxWebhookBody = 1 << 20

// Webhooks answer 200 once an event is handled or deliberately ignored, and
// non-2xx only when a retry could help (provider or database unreachable):
// both providers redeliver on non-2xx. The event body is never trusted for
// money: after the signature check the transaction is fetched again from
// the provider's verify API, and complete_payment credits it at most once.

func webhookBody(r *http.Request) ([]byte, error) {
	if r.Method != http.MethodPost {
		return nil, functions.NewError(http.StatusMethodNotAllowed, map[string]string{"error": "Method not allowed"}, nil)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxWebhookBody+1))
	if err != nil || len(body) > maxWebhookBody {
		return nil, functions.NewError(http.StatusBadRequest, map[string]string{"error": "Unreadable body"}, err)
	}
	return body, nil
}

var errBadSignature = functions.NewError(http.StatusUnauthorized, map[string]string{"error": "Invalid signature"}, nil)

// flutterwaveWebhook handles charge.completed, authenticated by the
// `verif-hash` header, and verifies the transaction by its id.
func (b *Backline) flutterwaveWebhook(w http.ResponseWriter, r *http.Request) error {
	body, err := webhookBody(r)
	if err != nil {
		return err
	}
	if !provider.FlutterwaveWebhookValid(r.Header.Get("verif-hash"), b.cfg.Flutterwave.SecretHash) {
		return errBadSignature
	}
	var ev struct {
		Event string `json:"event"`
		Data  struct {
			ID    json.Number `json:"id"`
			TxRef string      `json:"tx_ref"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		return functions.NewError(http.StatusBadRequest, map[string]string{"error": "Invalid JSON body"}, err)
	}
	if ev.Event != "charge.completed" || ev.Data.ID == "" {
		return ignored(w, "event not handled")
	}
	tx, err := b.flw.VerifyByID(r.Context(), ev.Data.ID.String())
	return b.settleWebhook(w, r, provider.Flutterwave, ev.Data.TxRef, tx, err)
}

// paystackWebhook handles charge.success, authenticated by
// x-paystack-signature (HMAC-SHA512 of the body with the secret key), and
// verifies the transaction by its reference.
func (b *Backline) paystackWebhook(w http.ResponseWriter, r *http.Request) error {
	body, err := webhookBody(r)
	if err != nil {
		return err
	}
	if !provider.PaystackWebhookValid(body, r.Header.Get("x-paystack-signature"), b.cfg.Paystack.SecretKey) {
		return errBadSignature
	}
	var ev struct {
		Event string `json:"event"`
		Data  struct {
			Reference string `json:"reference"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		return functions.NewError(http.StatusBadRequest, map[string]string{"error": "Invalid JSON body"}, err)
	}
	if ev.Event != "charge.success" || ev.Data.Reference == "" {
		return ignored(w, "event not handled")
	}
	tx, err := b.ps.Verify(r.Context(), ev.Data.Reference)
	return b.settleWebhook(w, r, provider.Paystack, ev.Data.Reference, tx, err)
}

// settleWebhook completes a payment a webhook announced, once the provider
// confirmed it.
func (b *Backline) settleWebhook(w http.ResponseWriter, r *http.Request, prov, ref string, tx *provider.Transaction, err error) error {
	switch {
	case errors.Is(err, provider.ErrNotFound):
		return ignored(w, "unknown transaction")
	case err != nil:
		return functions.NewError(http.StatusBadGateway, map[string]string{"error": "Verification failed"}, err)
	case tx.Reference != ref:
		b.log.WarnContext(r.Context(), "webhook reference differs from the verified one", "provider", prov, "event", ref, "verified", tx.Reference)
		return ignored(w, "reference mismatch")
	case !tx.Successful():
		// A failed charge changes no balance; the browser's return records it.
		return ignored(w, "transaction not successful")
	}
	c, err := b.complete(r.Context(), r, tx, nil)
	var refused *errRefused
	switch {
	case errors.As(err, &refused):
		httpx.WriteJSON(w, http.StatusOK, map[string]any{"received": true, "success": false, "message": refused.msg})
		return nil
	case err != nil:
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"received": true, "success": c.Success,
		"already_processed": c.AlreadyProcessed})
	return nil
}

func ignored(w http.ResponseWriter, why string) error {
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"received": true, "ignored": why})
	return nil
}
