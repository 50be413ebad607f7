package httpx

import (
	"math"
	"strings"
)

// ParseDigits reads a non-negative decimal numeral as HTTP carries them
// (Range positions, TUS Upload-Length and Upload-Offset): digits only, no
// sign, no spaces. A value beyond int64 reads as math.MaxInt64, larger than
// any size or offset, so callers refuse or clamp it instead of calling a
// well-formed header malformed or wrapping it around.
func ParseDigits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		d := int64(s[i]) - '0'
		if d < 0 || d > 9 {
			return 0, false
		}
		if n > (math.MaxInt64-d)/10 {
			n = math.MaxInt64
		} else {
			n = n*10 + d
		}
	}
	return n, true
}

// DigitsLess reports whether numeral a is smaller than numeral b, also when
// both are beyond int64 (where ParseDigits makes them equal).
func DigitsLess(a, b string) bool {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}
