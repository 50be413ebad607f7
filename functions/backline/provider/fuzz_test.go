package provider_test

import (
	"bytes"
	"encoding/json"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/basaltdev/basalt/functions/backline/provider"
)

// canonicalRE is Decimal's output: no exponent, no leading zeros, no
// trailing fractional zeros.
var canonicalRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$`)

// FuzzDecimal: amounts in request bodies (transfer-payment, checkout). Any
// JSON number is either refused or written exactly, canonically and within
// the bounds (at most 20 decimals, under 10^20), and the written form reads
// back as itself.
func FuzzDecimal(f *testing.F) {
	for _, s := range []string{"50", "61500.50", "1e3", "-2.50", "1.5e-3", "0", "-0", "0.000000000000000000001",
		"1e19", "99999999999999999999.99", "1e20", "1e999999", "1e-999999", "123456789e-9", "1E+2"} {
		f.Add(s)
	}
	limit := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(20), nil))
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := jsonNumber(s)
		if !ok {
			return
		}
		want, _ := new(big.Rat).SetString(strings.ToLower(string(n)))
		got, err := provider.Decimal(n)
		if err != nil {
			return
		}
		if !canonicalRE.MatchString(got) {
			t.Fatalf("Decimal(%s) = %q, not canonical", n, got)
		}
		if _, frac, _ := strings.Cut(got, "."); len(frac) > 20 {
			t.Fatalf("Decimal(%s) = %q, more than 20 decimals", n, got)
		}
		if back, _ := new(big.Rat).SetString(got); back.Cmp(want) != 0 {
			t.Fatalf("Decimal(%s) = %q, a different value", n, got)
		}
		if new(big.Rat).Abs(want).Cmp(limit) >= 0 {
			t.Fatalf("Decimal(%s) = %d digits, an amount beyond 10^20 was accepted", n, len(got))
		}
		if again, err := provider.Decimal(json.Number(got)); err != nil || again != got {
			t.Fatalf("Decimal(%q) = %q %v, want it unchanged", got, again, err)
		}
	})
}

// jsonNumber is s as the request decoder would hand it over: a JSON number.
func jsonNumber(s string) (json.Number, bool) {
	d := json.NewDecoder(bytes.NewReader([]byte(`{"amount":` + s + `}`)))
	d.UseNumber()
	var body struct {
		Amount any `json:"amount"`
	}
	if d.Decode(&body) != nil || d.More() {
		return "", false
	}
	n, ok := body.Amount.(json.Number)
	return n, ok
}

// FuzzNairaToKobo: amounts a provider reports. Whole kobo round-trip
// through naira, and anything accepted is a positive whole number of kobo.
func FuzzNairaToKobo(f *testing.F) {
	for _, s := range []string{"61500", "61500.5", "0.01", "1000.001", "0", "-5", "abc", "1/2", "1e2", "92233720368547758.07"} {
		f.Add(s, int64(1))
	}
	f.Fuzz(func(t *testing.T, naira string, kobo int64) {
		if k, err := provider.NairaToKobo(naira); err == nil {
			r, _ := new(big.Rat).SetString(naira)
			if k <= 0 || new(big.Rat).SetFrac64(k, 100).Cmp(r) != 0 {
				t.Fatalf("NairaToKobo(%q) = %d", naira, k)
			}
		}
		if kobo <= 0 {
			return
		}
		if back, err := provider.NairaToKobo(provider.KoboToNaira(kobo)); err != nil || back != kobo {
			t.Fatalf("kobo %d -> %q -> %d %v", kobo, provider.KoboToNaira(kobo), back, err)
		}
	})
}
