package provider_test

import (
	"encoding/json"
	"testing"

	"github.com/basaltdev/basalt/functions/backline/provider"
)

func TestAmounts(t *testing.T) {
	t.Parallel()
	kobo := []struct {
		naira   string
		kobo    int64
		wantErr bool
	}{
		{"61500", 6150000, false},
		{"61500.5", 6150050, false},
		{"0.01", 1, false},
		{"1000.001", 0, true},
		{"0", 0, true},
		{"-5", 0, true},
		{"abc", 0, true},
	}
	for _, tt := range kobo {
		got, err := provider.NairaToKobo(tt.naira)
		if (err != nil) != tt.wantErr || got != tt.kobo {
			t.Errorf("NairaToKobo(%q) = %d, %v; want %d, err %v", tt.naira, got, err, tt.kobo, tt.wantErr)
		}
		if !tt.wantErr {
			if back := provider.KoboToNaira(tt.kobo); back != tt.naira {
				t.Errorf("KoboToNaira(%d) = %q, want %q", tt.kobo, back, tt.naira)
			}
		}
	}
	decimals := []struct{ in, want string }{{"61500", "61500"}, {"61500.50", "61500.5"}, {"1e3", "1000"}, {"0.10", "0.1"},
		{"500.001", "500.001"}, {"-2.50", "-2.5"}, {"1.5e-3", "0.0015"}}
	for _, tt := range decimals {
		if got, err := provider.Decimal(json.Number(tt.in)); err != nil || got != tt.want {
			t.Errorf("Decimal(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	// Bounded: an exponent cannot ask for a million digits.
	for _, in := range []string{"1e20", "-1e20", "1e999999", "1e-999999", "100000000000000000000", "1.5e-21"} {
		if got, err := provider.Decimal(json.Number(in)); err == nil {
			t.Errorf("Decimal(%q) = %d digits, want an error", in, len(got))
		}
	}
	if got, err := provider.Decimal("99999999999999999999.99"); err != nil || got != "99999999999999999999.99" {
		t.Errorf("Decimal of the largest amount = %q, %v", got, err)
	}
}

func TestWebhookSignatures(t *testing.T) {
	t.Parallel()
	body := []byte(`{"event":"charge.success","data":{"reference":"r1"}}`)
	sig := provider.PaystackSignature(body, "sk_test_x")
	tests := []struct {
		name string
		ok   bool
		want bool
	}{
		{"paystack valid", provider.PaystackWebhookValid(body, sig, "sk_test_x"), true},
		{"paystack other key", provider.PaystackWebhookValid(body, sig, "sk_test_y"), false},
		{"paystack body changed", provider.PaystackWebhookValid(append([]byte(" "), body...), sig, "sk_test_x"), false},
		{"paystack no signature", provider.PaystackWebhookValid(body, "", "sk_test_x"), false},
		{"paystack no key configured", provider.PaystackWebhookValid(body, provider.PaystackSignature(body, ""), ""), false},
		{"flutterwave valid", provider.FlutterwaveWebhookValid("hash-1", "hash-1"), true},
		{"flutterwave wrong", provider.FlutterwaveWebhookValid("hash-2", "hash-1"), false},
		{"flutterwave none configured", provider.FlutterwaveWebhookValid("", ""), false},
	}
	for _, tt := range tests {
		if tt.ok != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.ok, tt.want)
		}
	}
	if len(sig) != 128 {
		t.Errorf("HMAC-SHA512 hex signature has %d characters, want 128", len(sig))
	}
}
