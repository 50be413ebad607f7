package totp

import (
	"strings"
	"testing"
	"time"
)

// RFC 6238 appendix B vectors for SHA-1 (last 6 digits of the 8-digit codes).
func TestCodeRFCVectors(t *testing.T) {
	t.Parallel()
	secret := b32.EncodeToString([]byte("12345678901234567890"))
	for _, tc := range []struct {
		unix int64
		want string
	}{
		{59, "287082"}, {1111111109, "081804"}, {1111111111, "050471"}, {1234567890, "005924"},
		{2000000000, "279037"}, {20000000000, "353130"},
	} {
		got, err := Code(secret, time.Unix(tc.unix, 0))
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("Code at %d = %s, want %s", tc.unix, got, tc.want)
		}
	}
}

func TestMatchSkew(t *testing.T) {
	t.Parallel()
	s := NewSecret()
	now := time.Unix(1700000000, 0)
	step := now.Unix() / Period
	c, _ := Code(s, now)
	for _, tc := range []struct {
		at   time.Time
		want bool
	}{
		{now, true}, {now.Add(30 * time.Second), true}, {now.Add(-30 * time.Second), true},
		{now.Add(90 * time.Second), false}, {now.Add(-90 * time.Second), false},
	} {
		got, ok := Match(s, c, tc.at)
		if ok != tc.want {
			t.Errorf("Match at %v = %v, want %v", tc.at.Sub(now), ok, tc.want)
		}
		// Whichever step the verifier is at, the code names its own.
		if ok && got != step {
			t.Errorf("Match at %v: step %d, want %d", tc.at.Sub(now), got, step)
		}
	}
	if _, ok := Match(s, "12345", now); ok {
		t.Error("short code accepted")
	}
}

func TestURIAndQR(t *testing.T) {
	t.Parallel()
	u := URI("localhost:3000", "a@b.co", "ABC")
	if !strings.HasPrefix(u, "otpauth://totp/localhost:3000:a@b.co?") || !strings.Contains(u, "secret=ABC") {
		t.Fatalf("URI = %s", u)
	}
	svg, err := QRSVG(u)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "h1v1") {
		t.Fatalf("SVG = %.80s", svg)
	}
}
