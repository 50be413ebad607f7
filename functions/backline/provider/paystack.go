package provider

import (
	"context"
	"crypto/hmac"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// PaystackClient talks to the Paystack API.
type PaystackClient struct{ c client }

// NewPaystack returns a client for baseURL (https://api.paystack.co in
// production) authenticating with the secret key (sk_…).
func NewPaystack(baseURL, secretKey string, hc *http.Client) *PaystackClient {
	return &PaystackClient{c: newClient(Paystack, baseURL, secretKey, hc)}
}

// psEnvelope is every Paystack answer: status true or false.
type psEnvelope struct {
	Status  bool            `json:"status"`
	Message string          `json:"message"`
	Code    string          `json:"code"`
	Data    json.RawMessage `json:"data"`
}

type psTransaction struct {
	ID        json.Number `json:"id"`
	Reference string      `json:"reference"`
	Amount    json.Number `json:"amount"` // kobo
	Currency  string      `json:"currency"`
	Status    string      `json:"status"`
}

// Initialize is POST /transaction/initialize; it returns the hosted
// checkout (authorization) URL. Paystack takes the amount in kobo.
func (p *PaystackClient) Initialize(ctx context.Context, co Checkout) (string, error) {
	kobo, err := NairaToKobo(co.Amount)
	if err != nil {
		return "", fmt.Errorf("paystack: %w", err)
	}
	req := map[string]any{
		"email":        co.Email,
		"amount":       strconv.FormatInt(kobo, 10),
		"currency":     co.Currency,
		"reference":    co.Reference,
		"callback_url": co.RedirectURL,
		"metadata":     co.Metadata,
	}
	status, body, err := p.c.do(ctx, http.MethodPost, "/transaction/initialize", req)
	if err != nil {
		return "", err
	}
	env, err := p.envelope(status, body)
	if err != nil {
		return "", err
	}
	var data struct {
		AuthorizationURL string `json:"authorization_url"`
	}
	if err := json.Unmarshal(env.Data, &data); err != nil || data.AuthorizationURL == "" {
		return "", &APIError{Provider: Paystack, Status: status, Message: "no authorization_url in response"}
	}
	return data.AuthorizationURL, nil
}

// Verify is GET /transaction/verify/{reference}.
func (p *PaystackClient) Verify(ctx context.Context, reference string) (*Transaction, error) {
	status, body, err := p.c.do(ctx, http.MethodGet, "/transaction/verify/"+url.PathEscape(reference), nil)
	if err != nil {
		return nil, err
	}
	env, err := p.envelope(status, body)
	if err != nil {
		return nil, err
	}
	var tx psTransaction
	if err := json.Unmarshal(env.Data, &tx); err != nil {
		return nil, fmt.Errorf("paystack: decode transaction: %w", err)
	}
	kobo, err := tx.Amount.Int64()
	if err != nil {
		return nil, fmt.Errorf("paystack: amount %q is not whole kobo", tx.Amount)
	}
	return &Transaction{Provider: Paystack, Reference: tx.Reference, ID: tx.ID.String(), Status: tx.Status,
		Amount: KoboToNaira(kobo), Currency: tx.Currency, Raw: env.Data}, nil
}

// envelope maps Paystack's answer: status true is data; code
// transaction_not_found is ErrNotFound; the rest is an APIError.
func (p *PaystackClient) envelope(status int, body []byte) (*psEnvelope, error) {
	var env psEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, &APIError{Provider: Paystack, Status: status, Message: "response is not JSON"}
	}
	if status == http.StatusOK && env.Status {
		return &env, nil
	}
	if env.Code == "transaction_not_found" || (status == http.StatusNotFound && !env.Status) {
		return nil, ErrNotFound
	}
	return nil, &APIError{Provider: Paystack, Status: status, Message: env.Message}
}

// PaystackSignature is the x-paystack-signature of a webhook body: hex
// HMAC-SHA512 keyed with the secret key.
func PaystackSignature(body []byte, secretKey string) string {
	m := hmac.New(sha512.New, []byte(secretKey))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// PaystackWebhookValid checks a webhook's x-paystack-signature header.
func PaystackWebhookValid(body []byte, signature, secretKey string) bool {
	if secretKey == "" || signature == "" {
		return false
	}
	return hmac.Equal([]byte(signature), []byte(PaystackSignature(body, secretKey)))
}
