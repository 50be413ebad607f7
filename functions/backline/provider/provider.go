// Package provider holds clients for the two card-payment providers Backline
// takes money through, speaking their real HTTP APIs: Flutterwave v3 (hosted
// payment link, verify by tx_ref or by transaction id, `verif-hash`
// webhooks) and Paystack (transaction initialize and verify, webhooks signed
// with HMAC-SHA512 of the body). Base URLs are configurable so the same code
// talks to the providers, to Basalt's local sandbox, or to a test server.
package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdev/basalt/internal/lazy"
)

// Names of the providers, as stored in payments.provider.
const (
	Flutterwave = "flutterwave"
	Paystack    = "paystack"
)

// ErrNotFound means the provider knows no transaction with that reference:
// a business outcome (the payment never started), not an outage.
var ErrNotFound = errors.New("transaction not found at provider")

// APIError is a provider answer other than success or not-found: a bad
// secret key, a validation error, a provider outage.
type APIError struct {
	Provider string
	Status   int
	Message  string
}

// Error names the provider, the HTTP status and the provider's message.
func (e *APIError) Error() string {
	return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, e.Message)
}

// Transaction is a verified transaction as the provider reports it.
type Transaction struct {
	Provider  string
	Reference string // Flutterwave tx_ref, Paystack reference
	ID        string // the provider's transaction id
	// Status is the provider's own word: Flutterwave successful, failed,
	// pending, cancelled; Paystack success, failed, abandoned, ongoing...
	Status string
	// Amount is what was charged, in naira, as a decimal string ("61500",
	// "61500.5"): Flutterwave reports naira, Paystack kobo.
	Amount   string
	Currency string
	// Raw is the provider's data object, stored with the payment.
	Raw json.RawMessage
}

// Successful reports whether the provider says the money was taken.
func (t *Transaction) Successful() bool {
	switch strings.ToLower(t.Status) {
	case "successful", "success", "completed":
		return true
	}
	return false
}

// Pending reports whether the transaction may still succeed: the customer
// has not finished (Paystack abandoned or ongoing, either provider's
// pending or processing).
func (t *Transaction) Pending() bool {
	switch strings.ToLower(t.Status) {
	case "pending", "ongoing", "abandoned", "processing", "queued":
		return true
	}
	return false
}

// Checkout is what starting a payment needs.
type Checkout struct {
	Reference   string // our tx_ref, unique per payment
	Amount      string // naira to charge, decimal string
	Currency    string // NGN
	Email       string // the payer, required by both providers
	RedirectURL string // where the hosted page sends the browser back
	Title       string // shown on the hosted page
	Metadata    map[string]string
}

// client is the HTTP plumbing both providers share.
type client struct {
	provider  string
	baseURL   string
	secretKey string
	http      *http.Client
}

func newClient(provider, baseURL, secretKey string, hc *http.Client) client {
	if hc == nil {
		hc = &http.Client{Timeout: 20 * time.Second}
	}
	return client{provider: provider, baseURL: strings.TrimRight(baseURL, "/"), secretKey: secretKey, http: hc}
}

// do sends a request with the secret key as Bearer token and returns the
// status and body; the caller interprets both per provider.
func (c client) do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, fmt.Errorf("%s: encode request: %w", c.provider, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, rd)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: build request: %w", c.provider, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.secretKey)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %s %s: %w", c.provider, method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return 0, nil, fmt.Errorf("%s: read %s response: %w", c.provider, path, err)
	}
	return res.StatusCode, b, nil
}

// KoboToNaira turns Paystack's integer kobo into a naira decimal string.
func KoboToNaira(kobo int64) string {
	return trimZeros(new(big.Rat).SetFrac64(kobo, 100).FloatString(2))
}

// NairaToKobo turns a naira decimal string into kobo, refusing fractions of
// a kobo and non-positive amounts.
func NairaToKobo(naira string) (int64, error) {
	r, ok := new(big.Rat).SetString(naira)
	if !ok {
		return 0, fmt.Errorf("amount %q is not a decimal number", naira)
	}
	r.Mul(r, big.NewRat(100, 1))
	if !r.IsInt() || r.Sign() <= 0 || !r.Num().IsInt64() {
		return 0, fmt.Errorf("amount %q is not a positive whole number of kobo", naira)
	}
	return r.Num().Int64(), nil
}

// Decimal normalises a JSON number to an exact decimal string ("61500.50"
// → "61500.5", "1e3" → "1000") without going through float64 and without
// rounding: "500.001" stays "500.001", so SQL sees what the client sent.
// Amounts are bounded (under 10^20, at most 20 decimals): an exponent is a
// few bytes of JSON that could otherwise ask for a million digits.
func Decimal(n json.Number) (string, error) {
	s := n.String()
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		// Checked before big.Rat expands it; the bounds below decide.
		if e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+")); err != nil || e > maxExponent || e < -maxExponent {
			return "", fmt.Errorf("amount %q is out of range", n)
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return "", fmt.Errorf("amount %q is not a decimal number", n)
	}
	if new(big.Rat).Abs(r).Cmp(maxAmount.Get()) >= 0 {
		return "", fmt.Errorf("amount %q is out of range", n)
	}
	scaled := new(big.Rat).Set(r)
	for prec := 0; prec <= maxDecimals; prec++ {
		if scaled.IsInt() {
			return r.FloatString(prec), nil
		}
		scaled.Mul(scaled, big.NewRat(10, 1))
	}
	return "", fmt.Errorf("amount %q has more than %d decimals", n, maxDecimals)
}

// maxDecimals bounds the precision Decimal accepts.
const maxDecimals = 20

// maxAmount bounds the magnitude Decimal accepts: far above any naira
// amount. maxExponent lets a long mantissa still reach it.
var maxAmount = &lazy.Value[*big.Rat]{New: func() *big.Rat {
	return new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(20), nil))
}}

const maxExponent = 1000

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
