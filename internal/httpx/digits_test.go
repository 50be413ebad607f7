package httpx_test

import (
	"math"
	"math/big"
	"regexp"
	"testing"

	"github.com/basaltdev/basalt/internal/httpx"
)

func TestParseDigits(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"0": 0, "007": 7, "10000": 10000, "9223372036854775807": math.MaxInt64,
		"9223372036854775808": math.MaxInt64, "99999999999999999999999": math.MaxInt64} {
		if got, ok := httpx.ParseDigits(in); !ok || got != want {
			t.Errorf("ParseDigits(%q) = %d %v, want %d", in, got, ok, want)
		}
	}
	// Signs, spaces and other notations are not decimal numerals.
	for _, in := range []string{"", "+5", "-0", "-1", " 5", "5 ", "1e3", "0x10", "٣"} {
		if got, ok := httpx.ParseDigits(in); ok {
			t.Errorf("ParseDigits(%q) = %d, want a refusal", in, got)
		}
	}
}

var digitsRE = regexp.MustCompile(`^[0-9]+$`)

// FuzzParseDigits: exactly the decimal numerals are accepted, with their
// value, or math.MaxInt64 when it does not fit; and DigitsLess orders any
// two numerals by value.
func FuzzParseDigits(f *testing.F) {
	for _, s := range []string{"0", "10000", "007", "", "-1", "+5", "-0", " 5", "5 ", "1e3", "0x10",
		"9223372036854775807", "9223372036854775808", "99999999999999999999999"} {
		f.Add(s, "9223372036854775808")
	}
	f.Fuzz(func(t *testing.T, s, other string) {
		n, ok := httpx.ParseDigits(s)
		if !digitsRE.MatchString(s) {
			if ok {
				t.Fatalf("ParseDigits(%q) = %d, accepted a value that is not a decimal numeral", s, n)
			}
			return
		}
		want, _ := new(big.Int).SetString(s, 10)
		if !ok || n != clamp(want) {
			t.Fatalf("ParseDigits(%q) = %d %v, want %s", s, n, ok, want)
		}
		if !digitsRE.MatchString(other) {
			return
		}
		o, _ := new(big.Int).SetString(other, 10)
		if got := httpx.DigitsLess(s, other); got != (want.Cmp(o) < 0) {
			t.Fatalf("DigitsLess(%q, %q) = %v", s, other, got)
		}
	})
}

func clamp(n *big.Int) int64 {
	if n.IsInt64() {
		return n.Int64()
	}
	return math.MaxInt64
}
