package sandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/basaltdev/basalt/functions/backline/provider"
	"github.com/basaltdev/basalt/functions/backline/sandbox"
)

var (
	sortStrings = cmpopts.SortSlices(func(a, b string) bool { return a < b })
	ignoreRaw   = cmpopts.IgnoreFields(provider.Transaction{}, "Raw")
)

type hook struct {
	header http.Header
	body   []byte
}

type testBundle struct {
	srv   *httptest.Server
	sb    *sandbox.Sandbox
	flw   *provider.FlutterwaveClient
	ps    *provider.PaystackClient
	mu    sync.Mutex
	hooks []hook
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	b := &testBundle{}
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		b.mu.Lock()
		b.hooks = append(b.hooks, hook{r.Header.Clone(), body})
		b.mu.Unlock()
	}))
	t.Cleanup(hooks.Close)
	mux := http.NewServeMux()
	b.srv = httptest.NewServer(mux)
	t.Cleanup(b.srv.Close)
	b.sb = sandbox.New(sandbox.Config{BaseURL: b.srv.URL + "/sb", FlutterwaveSecretKey: "FLWSECK_TEST-1",
		PaystackSecretKey: "sk_test_1", FlutterwaveSecretHash: "hash-1",
		FlutterwaveWebhookURL: hooks.URL + "/flw", PaystackWebhookURL: hooks.URL + "/ps"})
	mux.Handle("/sb/", http.StripPrefix("/sb", b.sb))
	b.flw = provider.NewFlutterwave(b.sb.FlutterwaveBaseURL(), "FLWSECK_TEST-1", nil)
	b.ps = provider.NewPaystack(b.sb.PaystackBaseURL(), "sk_test_1", nil)
	return b
}

// submit presses a button on the hosted page and returns the redirect.
func submit(t *testing.T, link, action string) *url.URL {
	t.Helper()
	res, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(page), `value="`+action+`"`) {
		t.Fatalf("checkout page: %d %s", res.StatusCode, page)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err = noFollow.PostForm(link, url.Values{"action": {action}})
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("submit %s: status %d", action, res.StatusCode)
	}
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestFlutterwaveFlow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		action     string
		wantQuery  []string // parameter names on the way back
		wantStatus string   // verify status; "" = not found
		wantHooks  int
	}{
		{"pay", "pay", []string{"from", "status", "transaction_id", "tx_ref"}, "successful", 1},
		{"decline", "fail", []string{"from", "status", "transaction_id", "tx_ref"}, "failed", 1},
		{"cancel", "cancel", []string{"from", "status", "tx_ref"}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			ref := "flw-" + tt.name
			link, err := b.flw.CreatePayment(ctx, provider.Checkout{Reference: ref, Amount: "65500", Currency: "NGN",
				Email: "a@example.com", RedirectURL: "http://app.example/dashboard?from=flw", Title: "Backline"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.flw.VerifyByReference(ctx, ref); !errors.Is(err, provider.ErrNotFound) {
				t.Fatalf("verify before paying: %v, want ErrNotFound", err)
			}
			back := submit(t, link, tt.action)
			q := back.Query()
			var keys []string
			for k := range q {
				keys = append(keys, k)
			}
			if diff := cmp.Diff(tt.wantQuery, keys, sortStrings); diff != "" {
				t.Errorf("redirect %s query (-want +got):\n%s", back, diff)
			}
			if q.Get("tx_ref") != ref || back.Host != "app.example" || back.Path != "/dashboard" {
				t.Errorf("redirect = %s", back)
			}
			tx, err := b.flw.VerifyByReference(ctx, ref)
			if tt.wantStatus == "" {
				if !errors.Is(err, provider.ErrNotFound) {
					t.Fatalf("verify after cancel: %v, want ErrNotFound", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := provider.Transaction{Provider: "flutterwave", Reference: ref, ID: q.Get("transaction_id"),
				Status: tt.wantStatus, Amount: "65500", Currency: "NGN"}
			if diff := cmp.Diff(want, *tx, ignoreRaw); diff != "" {
				t.Errorf("verify (-want +got):\n%s", diff)
			}
			byID, err := b.flw.VerifyByID(ctx, tx.ID)
			if err != nil || byID.Reference != ref {
				t.Fatalf("verify by id: %+v, %v", byID, err)
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			if len(b.hooks) != tt.wantHooks {
				t.Fatalf("%d webhooks, want %d", len(b.hooks), tt.wantHooks)
			}
			h := b.hooks[0]
			if !provider.FlutterwaveWebhookValid(h.header.Get("verif-hash"), "hash-1") {
				t.Errorf("webhook verif-hash = %q", h.header.Get("verif-hash"))
			}
			var ev struct {
				Event string `json:"event"`
				Data  struct {
					ID     int64  `json:"id"`
					TxRef  string `json:"tx_ref"`
					Status string `json:"status"`
				} `json:"data"`
			}
			if err := json.Unmarshal(h.body, &ev); err != nil || ev.Event != "charge.completed" || ev.Data.TxRef != ref ||
				ev.Data.Status != tt.wantStatus {
				t.Errorf("webhook body %s (%v)", h.body, err)
			}
		})
	}
}

func TestPaystackFlow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		action     string
		wantStatus string
		wantHooks  int
	}{
		{"pay", "pay", "success", 1},
		{"decline", "fail", "failed", 0},
		{"cancel", "cancel", "abandoned", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			ref := "topup-" + tt.name
			link, err := b.ps.Initialize(ctx, provider.Checkout{Reference: ref, Amount: "6375.5", Currency: "NGN",
				Email: "a@example.com", RedirectURL: "http://app.example/dashboard"})
			if err != nil {
				t.Fatal(err)
			}
			if tx, err := b.ps.Verify(ctx, ref); err != nil || tx.Status != "abandoned" {
				t.Fatalf("verify before paying: %+v, %v; want abandoned", tx, err)
			}
			back := submit(t, link, tt.action)
			if got := back.Query(); got.Get("reference") != ref || got.Get("trxref") != ref || len(got) != 2 {
				t.Errorf("redirect = %s, want trxref and reference", back)
			}
			tx, err := b.ps.Verify(ctx, ref)
			if err != nil {
				t.Fatal(err)
			}
			if tx.Status != tt.wantStatus || tx.Amount != "6375.5" || tx.Reference != ref {
				t.Errorf("verify = %+v, want status %s amount 6375.5", tx, tt.wantStatus)
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			if len(b.hooks) != tt.wantHooks {
				t.Fatalf("%d webhooks, want %d", len(b.hooks), tt.wantHooks)
			}
			if tt.wantHooks > 0 {
				h := b.hooks[0]
				if !provider.PaystackWebhookValid(h.body, h.header.Get("x-paystack-signature"), "sk_test_1") {
					t.Errorf("webhook signature does not verify")
				}
			}
		})
	}
}

func TestAPIErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	co := provider.Checkout{Reference: "dup-1", Amount: "100", Currency: "NGN", Email: "a@example.com", RedirectURL: "http://x/"}
	badFlw := provider.NewFlutterwave(b.sb.FlutterwaveBaseURL(), "FLWSECK_TEST-wrong", nil)
	badPs := provider.NewPaystack(b.sb.PaystackBaseURL(), "sk_test_wrong", nil)
	if _, err := b.ps.Initialize(ctx, co); err != nil {
		t.Fatal(err)
	}
	_, dupErr := b.ps.Initialize(ctx, co)
	_, flwKeyErr := badFlw.VerifyByReference(ctx, "x")
	_, psKeyErr := badPs.Verify(ctx, "x")
	_, psMissing := b.ps.Verify(ctx, "nope")
	_, flwMissing := b.flw.VerifyByID(ctx, "12")
	tests := []struct {
		name       string
		err        error
		wantStatus int // 0 = ErrNotFound
		wantMsg    string
	}{
		{"paystack duplicate reference", dupErr, 400, "Duplicate Transaction Reference"},
		{"flutterwave wrong key", flwKeyErr, 401, "Invalid authorization key"},
		{"paystack wrong key", psKeyErr, 401, "Invalid key"},
		{"paystack unknown reference", psMissing, 0, ""},
		{"flutterwave unknown id", flwMissing, 0, ""},
	}
	for _, tt := range tests {
		if tt.wantStatus == 0 {
			if !errors.Is(tt.err, provider.ErrNotFound) {
				t.Errorf("%s: %v, want ErrNotFound", tt.name, tt.err)
			}
			continue
		}
		var apiErr *provider.APIError
		if !errors.As(tt.err, &apiErr) || apiErr.Status != tt.wantStatus || apiErr.Message != tt.wantMsg {
			t.Errorf("%s: %v, want HTTP %d %q", tt.name, tt.err, tt.wantStatus, tt.wantMsg)
		}
	}
}
