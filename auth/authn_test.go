package auth

import (
	"regexp"
	"testing"
)

// The hand-written matchers must accept exactly what GoTrue's patterns
// accept; the patterns themselves are the oracle here.
var (
	gotrueBearerRE = regexp.MustCompile(`^(?i)bearer (\S+)$`)
	gotrueUUIDRE   = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

func TestBearerTokenMatchesGoTruePattern(t *testing.T) {
	t.Parallel()
	for _, h := range []string{
		"", "Bearer", "Bearer ", "bearer x", "BEARER x", "BeArEr abc.def.ghi", "Bearer  x", "Bearer x y",
		"Bearer x\t", "Bearer x\n", "Bearer \rx", "Bearer x\f", "Bearer x\v", "Bearer é", "Bearer x\u00a0",
		"Basic abc", "bearerx", "Bearer\tx", "xBearer x", "Bearer ſ", "Bearer\u00a0x", "beare\u017f x",
	} {
		m := gotrueBearerRE.FindStringSubmatch(h)
		got, ok := bearerToken(h)
		if ok != (m != nil) || (ok && got != m[1]) {
			t.Errorf("bearerToken(%q) = %q, %v; pattern gives %q", h, got, ok, m)
		}
	}
}

func TestIsUUIDMatchesPattern(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "00000000-0000-0000-0000-000000000000", "ABCDEF01-2345-6789-abcd-ef0123456789",
		"abcdef01-2345-6789-abcd-ef012345678", "abcdef01-2345-6789-abcd-ef01234567890", "abcdef0112345-6789-abcd-ef0123456789",
		"gbcdef01-2345-6789-abcd-ef0123456789", "abcdef01-2345-6789-abcd_ef0123456789", "{bcdef01-2345-6789-abcd-ef0123456789",
		"abcdef01-2345-6789-abcd-ef012345678\n",
	} {
		if got, want := isUUID(s), gotrueUUIDRE.MatchString(s); got != want {
			t.Errorf("isUUID(%q) = %v, pattern says %v", s, got, want)
		}
	}
}
