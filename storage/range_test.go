package storage

import "testing"

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
	}
	for _, tt := range tests {
		got, ok, unsat := parseRange(tt.h, tt.size)
		if got != tt.want || ok != tt.ok || unsat != tt.unsat {
			t.Errorf("parseRange(%q, %d) = %v %v %v, want %v %v %v", tt.h, tt.size, got, ok, unsat, tt.want, tt.ok, tt.unsat)
		}
	}
}

// FuzzParseRange checks that any accepted range lies inside the object.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"bytes=0-9", "bytes=-5", "bytes=3-", "bytes=0-1,2-3", "bytes=9999999999999999999-"} {
		f.Add(s, int64(100))
	}
	f.Fuzz(func(t *testing.T, h string, size int64) {
		if size < 0 {
			return
		}
		r, ok, unsat := parseRange(h, size)
		if ok && unsat {
			t.Fatal("both ok and unsatisfiable")
		}
		if ok && (r.start < 0 || r.length <= 0 || r.start+r.length > size) {
			t.Fatalf("parseRange(%q, %d) = %+v outside the object", h, size, r)
		}
	})
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
	for in, want := range map[string]int64{"20mb": 20000000, "1.5kb": 1500, "3B": 3, "1GB": 1000000000, "123": 123} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
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
