package backline_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/functions/backline"
	"github.com/basaltdev/basalt/functions/backline/provider"
	"github.com/basaltdev/basalt/functions/backline/sandbox"
)

func TestMain(m *testing.M) { pgtestMain(m) }

// TestRefusals covers the answers given before any SQL runs: who may call,
// what a body must look like, provider answers that end the flow.
func TestRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, user := b.signUp("fan")
	uuid := "7b6c1c0e-9a43-4f55-8a3a-0a8c7e3f1d11"
	tests := []struct {
		name       string
		fn         string
		token      string
		body       any
		wantStatus int
		want       map[string]any
	}{
		{"transfer without a token", "transfer-payment", "", map[string]any{}, 401,
			map[string]any{"code": 401.0, "message": "Missing authorization header"}},
		{"transfer with the anon key", "transfer-payment", b.keys.AnonKey,
			map[string]any{"artist_id": uuid, "sponsor_id": uuid, "reference": "stream-1", "amount": 50}, 401,
			map[string]any{"success": false, "error": "Authentication required"}},
		{"transfer with a bad artist id", "transfer-payment", user,
			map[string]any{"artist_id": "x", "sponsor_id": uuid, "reference": "stream-1", "amount": 50}, 400,
			map[string]any{"success": false, "error": "artist_id must be a UUID"}},
		{"transfer with a bad sponsor id", "transfer-payment", user,
			map[string]any{"artist_id": uuid, "sponsor_id": 5, "reference": "stream-1"}, 400,
			map[string]any{"success": false, "error": "Invalid JSON body"}},
		{"transfer without a reference", "transfer-payment", user,
			map[string]any{"artist_id": uuid, "sponsor_id": uuid, "amount": 50}, 400,
			map[string]any{"success": false, "error": "reference is required"}},
		{"transfer with a text amount", "transfer-payment", user,
			map[string]any{"artist_id": uuid, "sponsor_id": uuid, "reference": "stream-1", "amount": "lots"}, 400,
			map[string]any{"success": false, "error": "Invalid JSON body"}},
		{"transfer with broken JSON", "transfer-payment", user, `{"artist_id":`, 400,
			map[string]any{"success": false, "error": "Invalid JSON body"}},
		{"create-payment with an unknown provider", "create-payment", user,
			map[string]any{"provider": "stripe", "purpose": "topup", "amount": 5000}, 400,
			map[string]any{"success": false, "error": "provider must be flutterwave or paystack"}},
		{"create-payment with an unknown purpose", "create-payment", user,
			map[string]any{"provider": "paystack", "purpose": "gift", "amount": 5000}, 400,
			map[string]any{"success": false, "error": "purpose must be topup or verification"}},
		{"create-payment with the anon key", "create-payment", b.keys.AnonKey,
			map[string]any{"provider": "paystack", "purpose": "topup", "amount": 5000}, 401,
			map[string]any{"success": false, "error": "Authentication required"}},
		{"create-payment below the minimum top-up", "create-payment", user,
			map[string]any{"provider": "paystack", "purpose": "topup", "amount": 50}, 200,
			map[string]any{"success": false, "error": "Minimum top-up is ₦100"}},
		{"create-payment with a fraction of a kobo", "create-payment", user,
			map[string]any{"provider": "flutterwave", "purpose": "topup", "amount": 500.001}, 200,
			map[string]any{"success": false, "error": "Enter a valid amount"}},
		{"flutterwave-verify with another action", "flutterwave-verify", user,
			map[string]any{"action": "refund", "tx_ref": "flw-1"}, 400,
			map[string]any{"success": false, "message": "Unsupported action", "error_detail": `action must be "verify", got "refund"`,
				"data": map[string]any{"amount": 0.0, "session_mismatch": false}}},
		{"flutterwave-verify without tx_ref", "flutterwave-verify", user, map[string]any{"action": "verify"}, 400,
			map[string]any{"success": false, "message": "tx_ref is required", "error_detail": "missing tx_ref",
				"data": map[string]any{"amount": 0.0, "session_mismatch": false}}},
		{"flutterwave-verify of a payment the provider never saw", "flutterwave-verify", user,
			map[string]any{"action": "verify", "tx_ref": "flw-unknown", "userId": "x", "verification": false}, 200,
			map[string]any{"success": false, "message": "Payment not found",
				"error_detail": "The payment provider has no transaction with this reference",
				"data": map[string]any{"amount": 0.0, "session_mismatch": false, "already_processed": false, "credited_to_wallet": false, "status": "",
					"tx_ref": "flw-unknown"}}},
		{"paystack-verify without reference", "paystack-verify", user, map[string]any{"userId": "x"}, 400,
			map[string]any{"status": false, "message": "reference is required"}},
		{"paystack-verify of a reference the provider never saw", "paystack-verify", user,
			map[string]any{"reference": "nope", "userId": "x", "verification": false}, 200,
			map[string]any{"status": false, "message": "Payment not found",
				"data": map[string]any{"amount": 0.0, "session_mismatch": false, "already_processed": false, "credited_to_wallet": false, "status": "",
					"reference": "nope", "error_detail": "The payment provider has no transaction with this reference"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, got := b.call(tt.fn, tt.token, tt.body)
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d", status, tt.wantStatus)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProviderOutage(t *testing.T) {
	t.Parallel()
	down := unusedURL(t)
	b := setup(t, func(_ *testBundle, c *backline.Config, _ *sandbox.Config) {
		c.Flutterwave.BaseURL = down
		c.Paystack.BaseURL = down
	})
	_, user := b.signUp("fan")
	status, got := b.call("flutterwave-verify", user, map[string]any{"action": "verify", "tx_ref": "flw-1"})
	if status != http.StatusBadGateway || got["success"] != false || got["message"] != "Failed to verify payment" {
		t.Errorf("flutterwave-verify with the provider down: %d %v", status, got)
	}
	status, got = b.call("paystack-verify", user, map[string]any{"reference": "ref-1"})
	if status != http.StatusBadGateway || got["status"] != false {
		t.Errorf("paystack-verify with the provider down: %d %v", status, got)
	}
}

func TestUnconfiguredProvider(t *testing.T) {
	t.Parallel()
	b := setup(t, func(_ *testBundle, c *backline.Config, _ *sandbox.Config) { c.Paystack.SecretKey = "" })
	_, user := b.signUp("fan")
	status, got := b.call("create-payment", user, map[string]any{"provider": "paystack", "purpose": "topup", "amount": 5000})
	want := map[string]any{"success": false, "error": "Card payments with paystack are not configured"}
	if status != http.StatusServiceUnavailable || !cmp.Equal(want, got) {
		t.Errorf("create-payment: %d %v, want 503 %v", status, got, want)
	}
	status, got = b.call("paystack-verify", user, map[string]any{"reference": "ref-1"})
	if status != http.StatusServiceUnavailable || got["status"] != false {
		t.Errorf("paystack-verify: %d %v, want 503", status, got)
	}
	// Webhooks cannot be authenticated without the secret key: refused.
	req := webhookRequest(t, b.fn.URL+"/paystack-webhook", `{"event":"charge.success","data":{"reference":"r"}}`,
		map[string]string{"x-paystack-signature": provider.PaystackSignature([]byte(`{"event":"charge.success","data":{"reference":"r"}}`), "")})
	if status, _ := b.do(req); status != http.StatusUnauthorized {
		t.Errorf("paystack-webhook without a key: %d, want 401", status)
	}
}

func TestClientIP(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tests := []struct {
		name, ip string
	}{
		{"ipv4", "198.51.100.23"},
		{"ipv6", "2001:db8::1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b.clientIP.Store(tt.ip)
			// A body field or a forged header cannot change the answer: the
			// gateway overwrites X-Real-Ip.
			req := newRequest(t, "GET", b.fn.URL+"/client-ip", "")
			req.Header.Set("Authorization", "Bearer "+b.keys.AnonKey)
			req.Header.Set("X-Real-Ip", "10.0.0.1")
			req.Header.Set("X-Forwarded-For", "10.0.0.2")
			status, got := b.do(req)
			if status != 200 || !cmp.Equal(map[string]any{"ip": tt.ip}, got) {
				t.Errorf("client-ip = %d %v, want {ip: %s}", status, got, tt.ip)
			}
		})
	}
	if status, got := b.call("client-ip", "", nil); status != 401 {
		t.Errorf("client-ip without a token = %d %v, want 401 (verify_jwt)", status, got)
	}
}

func TestWebhookSignatures(t *testing.T) {
	t.Parallel()
	b := setup(t)
	psBody := `{"event":"charge.success","data":{"reference":"never-started"}}`
	flwBody := `{"event":"charge.completed","data":{"id":123,"tx_ref":"flw-never","status":"successful","amount":100}}`
	tests := []struct {
		name       string
		fn         string
		body       string
		header     map[string]string
		wantStatus int
		want       map[string]any
	}{
		{"paystack without signature", "paystack-webhook", psBody, nil, 401, map[string]any{"error": "Invalid signature"}},
		{"paystack signed with another key", "paystack-webhook", psBody,
			map[string]string{"x-paystack-signature": provider.PaystackSignature([]byte(psBody), "sk_test_other")}, 401,
			map[string]any{"error": "Invalid signature"}},
		{"paystack signature of another body", "paystack-webhook", psBody,
			map[string]string{"x-paystack-signature": provider.PaystackSignature([]byte(psBody+" "), psKey)}, 401,
			map[string]any{"error": "Invalid signature"}},
		{"paystack valid, unknown reference", "paystack-webhook", psBody,
			map[string]string{"x-paystack-signature": provider.PaystackSignature([]byte(psBody), psKey)}, 200,
			map[string]any{"received": true, "ignored": "unknown transaction"}},
		{"paystack valid, other event", "paystack-webhook", `{"event":"transfer.success","data":{}}`,
			map[string]string{"x-paystack-signature": provider.PaystackSignature([]byte(`{"event":"transfer.success","data":{}}`), psKey)}, 200,
			map[string]any{"received": true, "ignored": "event not handled"}},
		{"flutterwave without verif-hash", "flutterwave-webhook", flwBody, nil, 401, map[string]any{"error": "Invalid signature"}},
		{"flutterwave wrong verif-hash", "flutterwave-webhook", flwBody, map[string]string{"verif-hash": "guess"}, 401,
			map[string]any{"error": "Invalid signature"}},
		{"flutterwave valid, body not confirmed by the provider", "flutterwave-webhook", flwBody,
			map[string]string{"verif-hash": flwHash}, 200, map[string]any{"received": true, "ignored": "unknown transaction"}},
		{"flutterwave valid, broken JSON", "flutterwave-webhook", `{"event":`, map[string]string{"verif-hash": flwHash}, 400,
			map[string]any{"error": "Invalid JSON body"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, got := b.do(webhookRequest(t, b.fn.URL+"/"+tt.fn, tt.body, tt.header))
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d", status, tt.wantStatus)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSandboxFunction(t *testing.T) {
	t.Parallel()
	cfg := backline.Config{SiteURL: "http://app.test"}
	cfg.UseSandbox("http://localhost:54321/functions/v1")
	if cfg.Sandbox == nil || cfg.Flutterwave.BaseURL != "http://localhost:54321/functions/v1/sandbox/flutterwave" ||
		cfg.Paystack.BaseURL != "http://localhost:54321/functions/v1/sandbox/paystack" ||
		cfg.Sandbox.PaystackWebhookURL != "http://localhost:54321/functions/v1/paystack-webhook" {
		t.Fatalf("UseSandbox config = %+v", cfg)
	}
	b := setup(t, devSandbox)
	req := newRequest(t, "GET", b.fn.URL+"/sandbox/checkout/unknown", "")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown checkout = %d, want 404 from the sandbox", res.StatusCode)
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		check   func(backline.Config) bool
		wantErr string
	}{
		{"defaults", nil, func(c backline.Config) bool {
			return c.SiteURL == "http://localhost:3000" && c.ReturnPath == "/dashboard" &&
				c.Flutterwave.BaseURL == backline.FlutterwaveAPI && c.Paystack.BaseURL == backline.PaystackAPI &&
				!c.ProvidersConfigured() && !c.WantSandbox
		}, ""},
		{"keys and sandbox", map[string]string{"FLUTTERWAVE_SECRET_KEY": "FLWSECK-x", "FLUTTERWAVE_SECRET_HASH": "h",
			"PAYSTACK_SECRET_KEY": "sk_live_x", "BACKLINE_PAYMENT_SANDBOX": "true", "SITE_URL": "https://backline.example"},
			func(c backline.Config) bool {
				return c.ProvidersConfigured() && c.WantSandbox && c.Flutterwave.SecretHash == "h" && c.SiteURL == "https://backline.example"
			}, ""},
		{"bad base URL", map[string]string{"PAYSTACK_BASE_URL": "api.paystack.co"}, nil, "PAYSTACK_BASE_URL"},
		{"bad return path", map[string]string{"BACKLINE_PAYMENT_RETURN_PATH": "dashboard"}, nil, "BACKLINE_PAYMENT_RETURN_PATH"},
		{"bad sandbox flag", map[string]string{"BACKLINE_PAYMENT_SANDBOX": "maybe"}, nil, "BACKLINE_PAYMENT_SANDBOX"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := backline.ConfigFromEnv(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to name %s", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(cfg) {
				t.Errorf("ConfigFromEnv = %+v, %v", cfg, err)
			}
		})
	}
}
