// Package sandbox is a local stand-in for Backline's two card-payment
// providers. It speaks the slice of their real APIs that Backline uses, so
// the production code path runs unchanged against it:
//
//   - Flutterwave v3 under /flutterwave: POST /v3/payments (hosted link),
//     GET /v3/transactions/verify_by_reference?tx_ref=, GET
//     /v3/transactions/{id}/verify, and `verif-hash` webhooks
//     (charge.completed);
//   - Paystack under /paystack: POST /transaction/initialize, GET
//     /transaction/verify/{reference}, and webhooks signed with
//     x-paystack-signature (charge.success).
//
// Both require `Authorization: Bearer <secret key>`. The hosted checkout
// page (/checkout/{id}) has Pay, Decline and Cancel buttons and sends the
// browser back with the providers' query parameters: Flutterwave's status,
// tx_ref and transaction_id, Paystack's trxref and reference. `basalt dev`
// serves it so the whole payment flow runs offline; tests use it as the
// fake provider.
package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/basaltdev/basalt/functions/backline/provider"
)

// Config is the sandbox's view of the merchant account.
type Config struct {
	// BaseURL is where the sandbox is reachable from a browser; checkout
	// links are built on it.
	BaseURL string
	// FlutterwaveSecretKey and PaystackSecretKey are the Bearer keys the API
	// accepts.
	FlutterwaveSecretKey, PaystackSecretKey string
	// FlutterwaveSecretHash is sent as `verif-hash` with webhooks.
	FlutterwaveSecretHash string
	// FlutterwaveWebhookURL and PaystackWebhookURL receive webhooks when a
	// payment ends; empty sends none.
	FlutterwaveWebhookURL, PaystackWebhookURL string
	// HTTP sends webhooks; nil means a client with a 10 s timeout.
	HTTP *http.Client
	// Log receives webhook delivery failures; nil discards them.
	Log *slog.Logger
}

// Sandbox is the fake provider; it keeps its transactions in memory.
type Sandbox struct {
	cfg Config
	mux *http.ServeMux
	log *slog.Logger
	now func() time.Time

	mu     sync.Mutex
	nextID int64
	byID   map[string]*txn            // checkout id → transaction
	byRef  map[string]map[string]*txn // provider → reference → transaction
	byTxID map[int64]*txn             // provider transaction id → transaction
}

var _ http.Handler = (*Sandbox)(nil)

// txn is one payment attempt.
type txn struct {
	provider   string
	checkoutID string
	id         int64
	ref        string
	amount     *big.Rat // naira
	currency   string
	email      string
	redirect   string
	title      string
	metadata   map[string]string
	// status uses each provider's words: Flutterwave "" (not attempted:
	// verify says not found), successful, failed; Paystack abandoned,
	// success, failed.
	status    string
	createdAt time.Time
	paidAt    time.Time
}

// New returns a sandbox for cfg.
func New(cfg Config) *Sandbox {
	s := &Sandbox{cfg: cfg, mux: http.NewServeMux(), log: cfg.Log, now: time.Now,
		nextID: 4_100_000_000 + time.Now().Unix()%1_000_000, byID: map[string]*txn{},
		byRef: map[string]map[string]*txn{provider.Flutterwave: {}, provider.Paystack: {}}, byTxID: map[int64]*txn{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.cfg.HTTP == nil {
		s.cfg.HTTP = &http.Client{Timeout: 10 * time.Second}
	}
	s.cfg.BaseURL = strings.TrimRight(s.cfg.BaseURL, "/")
	s.routes()
	return s
}

// ServeHTTP implements http.Handler.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// FlutterwaveBaseURL and PaystackBaseURL are the API roots to configure the
// clients with.
func (s *Sandbox) FlutterwaveBaseURL() string { return s.cfg.BaseURL + "/flutterwave" }

// PaystackBaseURL is the Paystack API root of the sandbox.
func (s *Sandbox) PaystackBaseURL() string { return s.cfg.BaseURL + "/paystack" }

func (s *Sandbox) routes() {
	s.mux.HandleFunc("POST /flutterwave/v3/payments", s.flwAuth(s.flwCreatePayment))
	s.mux.HandleFunc("GET /flutterwave/v3/transactions/verify_by_reference", s.flwAuth(s.flwVerifyByReference))
	s.mux.HandleFunc("GET /flutterwave/v3/transactions/{id}/verify", s.flwAuth(s.flwVerifyByID))
	s.mux.HandleFunc("POST /paystack/transaction/initialize", s.psAuth(s.psInitialize))
	s.mux.HandleFunc("GET /paystack/transaction/verify/{reference}", s.psAuth(s.psVerify))
	s.mux.HandleFunc("GET /checkout/{id}", s.checkoutPage)
	s.mux.HandleFunc("POST /checkout/{id}", s.checkoutSubmit)
}

// bearer reports whether r carries exactly the expected secret key.
func bearer(r *http.Request, key string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && key != "" && got == key
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// parseAmount reads an amount given as a JSON number or string.
func parseAmount(raw json.RawMessage) (*big.Rat, bool) {
	s := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.Sign() <= 0 {
		return nil, false
	}
	return r, true
}

// naira renders an amount as a JSON number in naira ("61500", "99.5").
func naira(r *big.Rat) json.Number {
	return json.Number(strings.TrimSuffix(strings.TrimRight(r.FloatString(2), "0"), "."))
}

// kobo renders an amount in kobo.
func kobo(r *big.Rat) int64 {
	k := new(big.Rat).Mul(r, big.NewRat(100, 1))
	return new(big.Int).Quo(k.Num(), k.Denom()).Int64()
}

// add records a new transaction and returns it.
func (s *Sandbox) add(t *txn) *txn {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	t.id = s.nextID
	t.checkoutID = randomHex(12)
	t.createdAt = s.now().UTC()
	s.byID[t.checkoutID] = t
	s.byRef[t.provider][t.ref] = t
	s.byTxID[t.id] = t
	return t
}

// snapshot copies a transaction under the lock, for rendering.
func (s *Sandbox) snapshot(t *txn) txn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *t
}

// sendWebhook posts a webhook and logs a failed delivery; providers retry,
// the sandbox does not.
func (s *Sandbox) sendWebhook(ctx context.Context, url string, body []byte, header http.Header) {
	if url == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		s.log.Warn("sandbox webhook", "url", url, "err", err)
		return
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	res, err := s.cfg.HTTP.Do(req)
	if err != nil {
		s.log.Warn("sandbox webhook", "url", url, "err", err)
		return
	}
	_ = res.Body.Close()
	if res.StatusCode/100 != 2 {
		s.log.Warn("sandbox webhook refused", "url", url, "status", res.StatusCode)
	}
}

func (s *Sandbox) checkoutURL(t *txn) string {
	return fmt.Sprintf("%s/checkout/%s", s.cfg.BaseURL, t.checkoutID)
}

func bigHundred() *big.Rat { return big.NewRat(100, 1) }
