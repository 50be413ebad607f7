package provider

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// FlutterwaveClient talks to the Flutterwave v3 API.
type FlutterwaveClient struct{ c client }

// NewFlutterwave returns a client for baseURL (https://api.flutterwave.com
// in production) authenticating with the secret key (FLWSECK-…).
func NewFlutterwave(baseURL, secretKey string, hc *http.Client) *FlutterwaveClient {
	return &FlutterwaveClient{c: newClient(Flutterwave, baseURL, secretKey, hc)}
}

// flwEnvelope is every Flutterwave v3 answer: status "success" or "error".
type flwEnvelope struct {
	Status  string          `json:"status"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// flwTransaction is the part of a verified transaction Backline reads.
type flwTransaction struct {
	ID       json.Number `json:"id"`
	TxRef    string      `json:"tx_ref"`
	Amount   json.Number `json:"amount"`
	Currency string      `json:"currency"`
	Status   string      `json:"status"`
}

// CreatePayment starts a Standard (hosted) payment, POST /v3/payments, and
// returns the hosted checkout link.
func (f *FlutterwaveClient) CreatePayment(ctx context.Context, co Checkout) (string, error) {
	req := map[string]any{
		"tx_ref":       co.Reference,
		"amount":       co.Amount,
		"currency":     co.Currency,
		"redirect_url": co.RedirectURL,
		"customer":     map[string]string{"email": co.Email},
		"customizations": map[string]string{
			"title": co.Title,
		},
		"meta": co.Metadata,
	}
	status, body, err := f.c.do(ctx, http.MethodPost, "/v3/payments", req)
	if err != nil {
		return "", err
	}
	env, err := f.envelope(status, body)
	if err != nil {
		return "", err
	}
	var data struct {
		Link string `json:"link"`
	}
	if err := json.Unmarshal(env.Data, &data); err != nil || data.Link == "" {
		return "", &APIError{Provider: Flutterwave, Status: status, Message: "no hosted link in response"}
	}
	return data.Link, nil
}

// VerifyByReference is GET /v3/transactions/verify_by_reference?tx_ref=.
func (f *FlutterwaveClient) VerifyByReference(ctx context.Context, txRef string) (*Transaction, error) {
	return f.verify(ctx, "/v3/transactions/verify_by_reference?tx_ref="+url.QueryEscape(txRef))
}

// VerifyByID is GET /v3/transactions/{id}/verify, for webhooks, which carry
// the transaction id.
func (f *FlutterwaveClient) VerifyByID(ctx context.Context, id string) (*Transaction, error) {
	return f.verify(ctx, "/v3/transactions/"+url.PathEscape(id)+"/verify")
}

func (f *FlutterwaveClient) verify(ctx context.Context, path string) (*Transaction, error) {
	status, body, err := f.c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	env, err := f.envelope(status, body)
	if err != nil {
		return nil, err
	}
	var tx flwTransaction
	if err := json.Unmarshal(env.Data, &tx); err != nil {
		return nil, fmt.Errorf("flutterwave: decode transaction: %w", err)
	}
	amount, err := Decimal(tx.Amount)
	if err != nil {
		return nil, fmt.Errorf("flutterwave: %w", err)
	}
	return &Transaction{Provider: Flutterwave, Reference: tx.TxRef, ID: tx.ID.String(), Status: tx.Status,
		Amount: amount, Currency: tx.Currency, Raw: env.Data}, nil
}

// envelope maps Flutterwave's answer: 200 with status "success" is data;
// "No transaction was found" (HTTP 400 or 404) is ErrNotFound; the rest
// is an APIError.
func (f *FlutterwaveClient) envelope(status int, body []byte) (*flwEnvelope, error) {
	var env flwEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, &APIError{Provider: Flutterwave, Status: status, Message: "response is not JSON"}
	}
	if status == http.StatusOK && env.Status == "success" {
		return &env, nil
	}
	if (status == http.StatusBadRequest || status == http.StatusNotFound) && isFlwNotFound(env.Message) {
		return nil, ErrNotFound
	}
	return nil, &APIError{Provider: Flutterwave, Status: status, Message: env.Message}
}

func isFlwNotFound(msg string) bool {
	return msg == "No transaction was found for this id" || msg == "No transaction was found for this reference" ||
		msg == "Transaction not found"
}

// FlutterwaveWebhookValid checks a webhook's `verif-hash` header against the
// secret hash set on the dashboard. An empty secret hash accepts nothing.
func FlutterwaveWebhookValid(verifHash, secretHash string) bool {
	if secretHash == "" || verifHash == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(verifHash), []byte(secretHash)) == 1
}
