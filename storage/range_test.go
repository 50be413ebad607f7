package storage

import (
	"math"
	"math/big"
	"strings"
	"testing"
)

func TestParseRange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		h         string
		size      int64
		want      byteRange
		ok, unsat bool
	}{
		{"bytes=0-9", 100, byteRange{0, 10}, true, false},
		{"bytes=90-", 100, byteRange{90, 10}, true, false},
		{"bytes=90-200", 100, byteRange{90, 10}, true, false},
		{"bytes=-10", 100, byteRange{90, 10}, true, false},
		{"bytes=-200", 100, byteRange{0, 100}, true, false},
		{"bytes=100-", 100, byteRange{}, false, true},
		{"bytes=-0", 100, byteRange{}, false, true},
		{"bytes=5-2", 100, byteRange{}, false, false},
		{"bytes=0-1,5-6", 100, byteRange{}, false, false},
		{"items=0-1", 100, byteRange{}, false, false},
		{"bytes=x-1", 100, byteRange{}, false, false},
		{"bytes=0-", 0, byteRange{}, false, true},
		// Positions are decimal numerals, however large (RFC 9110).
		{"bytes=+1-5", 100, byteRange{}, false, false},
		{"bytes=-+5", 100, byteRange{}, false, false},
		{"bytes=99999999999999999999-", 100, byteRange{}, false, true},
		{"bytes=0-99999999999999999999", 100, byteRange{0, 100}, true, false},
		{"bytes=-99999999999999999999", 100, byteRange{0, 100}, true, false},
		{"bytes=99999999999999999999-99999999999999999998", 100, byteRange{}, false, false},
	}
	for _, tt := range tests {
		got, ok, unsat := parseRange(tt.h, tt.size)
		if got != tt.want || ok != tt.ok || unsat != tt.unsat {
			t.Errorf("parseRange(%q, %d) = %v %v %v, want %v %v %v", tt.h, tt.size, got, ok, unsat, tt.want, tt.ok, tt.unsat)
		}
	}
}

// FuzzParseRange checks parseRange against RFC 9110's single byte range,
// computed with unbounded integers: "bytes=first-[last]" or "bytes=-suffix"
// with decimal positions (spaces around the parts tolerated). Anything else
// is ignored (the whole object is sent); an accepted range lies inside the
// object; a satisfiable range is never refused and an unsatisfiable one
// never served, however large its numbers.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"bytes=0-9", "bytes=-5", "bytes=3-", "bytes=0-1,2-3", "bytes=9999999999999999999-",
		"bytes=0-99999999999999999999", "bytes=-99999999999999999999", "bytes=+1-5", "bytes=-+5", "bytes= 2 - 4 ", "bytes=5-2"} {
		f.Add(s, int64(100))
	}
	f.Fuzz(func(t *testing.T, h string, size int64) {
		if size < 0 {
			return
		}
		r, ok, unsat := parseRange(h, size)
		if ok && (r.start < 0 || r.length <= 0 || r.start+r.length > size) {
			t.Fatalf("parseRange(%q, %d) = %+v outside the object", h, size, r)
		}
		want, wantOK, wantUnsat := rangeModel(h, size)
		if ok != wantOK || unsat != wantUnsat || (ok && r != want) {
			t.Fatalf("parseRange(%q, %d) = %+v ok=%v unsat=%v, want %+v ok=%v unsat=%v", h, size, r, ok, unsat, want, wantOK, wantUnsat)
		}
	})
}

// rangeModel is RFC 9110's single byte range over unbounded integers.
func rangeModel(h string, size int64) (byteRange, bool, bool) {
	spec, found := strings.CutPrefix(strings.TrimSpace(h), "bytes=")
	if !found || strings.Contains(spec, ",") {
		return byteRange{}, false, false
	}
	first, last, found := strings.Cut(strings.TrimSpace(spec), "-")
	first, last = strings.TrimSpace(first), strings.TrimSpace(last)
	num := func(s string) (*big.Int, bool) {
		if s == "" || strings.Trim(s, "0123456789") != "" {
			return nil, false
		}
		return new(big.Int).SetString(s, 10)
	}
	sz := big.NewInt(size)
	if !found {
		return byteRange{}, false, false
	}
	if first == "" {
		n, ok := num(last)
		switch {
		case !ok:
			return byteRange{}, false, false
		case n.Sign() == 0 || size == 0:
			return byteRange{}, false, true
		case n.Cmp(sz) > 0:
			n = sz
		}
		return byteRange{size - n.Int64(), n.Int64()}, true, false
	}
	start, ok := num(first)
	if !ok {
		return byteRange{}, false, false
	}
	end := new(big.Int).Sub(sz, big.NewInt(1))
	if last != "" {
		e, ok := num(last)
		if !ok || e.Cmp(start) < 0 {
			return byteRange{}, false, false
		}
		if e.Cmp(end) < 0 {
			end = e
		}
	}
	if start.Cmp(sz) >= 0 {
		return byteRange{}, false, true
	}
	return byteRange{start.Int64(), end.Int64() - start.Int64() + 1}, true, false
}

func TestKeyAndBucketRules(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"a.txt", "dir/sub/a b.png", "!-_.*'()&$@=;:+,?"} {
		if validateKey(k) != nil {
			t.Errorf("key %q rejected", k)
		}
	}
	for _, k := range []string{"", "café", "a\\b", "a#b", "a%b", "a\nb"} {
		if validateKey(k) == nil {
			t.Errorf("key %q accepted", k)
		}
	}
	for _, n := range []string{"avatars", "A-b_c.d", "x"} {
		if !validBucketName(n) {
			t.Errorf("bucket %q rejected", n)
		}
	}
	for _, n := range []string{"", " lead", "trail ", "a/b", string(make([]byte, 101))} {
		if validBucketName(n) {
			t.Errorf("bucket %q accepted", n)
		}
	}
	for in, want := range map[string]int64{"20mb": 20000000, "1.5kb": 1500, "3B": 3, "1GB": 1000000000, "123": 123,
		"1.005kb": 1005, "9007199254740993b": 9007199254740993, "9223372036854775807": math.MaxInt64, "0.5b": 0} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	// Sizes that do not fit are refused, not wrapped to a negative limit.
	for _, in := range []string{"99999999999gb", "9223372036854775808", "9223372036854775808b", "+5", "-1", "1e3", ""} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
	for _, m := range []struct {
		allowed []string
		mt      string
		ok      bool
	}{
		{[]string{"image/*"}, "image/png", true},
		{[]string{"image/*"}, "text/plain", false},
		{[]string{"text/plain;charset=utf-8"}, "text/plain", true},
		{[]string{"audio/mpeg"}, "audio/mpeg; codecs=mp3", true},
		{nil, "anything/at-all", true},
	} {
		if got := mimeAllowed(m.allowed, m.mt); got != m.ok {
			t.Errorf("mimeAllowed(%v, %q) = %v", m.allowed, m.mt, got)
		}
	}
}
