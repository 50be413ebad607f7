package auth

import (
	"maps"
	"regexp"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/internal/jwt"
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

// Clock skew: a user token whose iat or nbf lies further ahead than the
// 30 seconds of leeway is a bad_jwt, with the JWT library's wording that
// GoTrue's message embeds, whichever project key signed it.
func TestUserTokenTimeClaims(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	at := e.signUp("skew@example.com", "secret123")["access_token"].(string)
	base, err := e.keys.Verify(at, e.clock.now())
	if err != nil {
		t.Fatal(err)
	}
	ahead := func(d time.Duration) int64 { return e.clock.now().Add(d).Unix() }
	const prefix = "invalid JWT: unable to parse or verify signature, token has invalid claims: "
	for _, tc := range []struct {
		name   string
		set    gojwt.MapClaims
		status int
		msg    string
	}{
		{"iat an hour ahead", gojwt.MapClaims{"iat": ahead(time.Hour), "exp": ahead(2 * time.Hour)}, 403, prefix + "token used before issued"},
		{"iat at the leeway", gojwt.MapClaims{"iat": ahead(jwt.Leeway)}, 200, ""},
		{"iat a second past the leeway", gojwt.MapClaims{"iat": ahead(jwt.Leeway + time.Second)}, 403, prefix + "token used before issued"},
		{"nbf an hour ahead", gojwt.MapClaims{"nbf": ahead(time.Hour)}, 403, prefix + "token is not valid yet"},
		{"nbf at the leeway", gojwt.MapClaims{"nbf": ahead(jwt.Leeway)}, 200, ""},
		{"nbf a second past the leeway", gojwt.MapClaims{"nbf": ahead(jwt.Leeway + time.Second)}, 403, prefix + "token is not valid yet"},
	} {
		claims := gojwt.MapClaims{}
		maps.Copy(claims, base.Map)
		maps.Copy(claims, tc.set)
		es, _ := e.keys.Sign(claims)
		hs, _ := e.keys.SignHS256(claims)
		for alg, tok := range map[string]string{"ES256": es, "HS256": hs} {
			r := e.req("GET", "/user", nil, tok)
			if tc.status == 200 {
				if r.Status != 200 {
					t.Errorf("%s, %s: %d %s", tc.name, alg, r.Status, r.Body)
				}
				continue
			}
			wantErr(t, r, tc.status, "bad_jwt", tc.msg)
		}
	}
}

// The role claim: GoTrue checks it only against the admin roles, and so
// do we. A user token with a role the database does not have still reads
// its own user (the reply comes from auth.users, not from the claim); the
// database refuses the role wherever it would be used (PostgREST's 401
// 22023), and the admin API refuses it as not_admin.
func TestUserTokenUnknownRole(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	at := e.signUp("role@example.com", "secret123")["access_token"].(string)
	base, err := e.keys.Verify(at, e.clock.now())
	if err != nil {
		t.Fatal(err)
	}
	claims := gojwt.MapClaims{}
	maps.Copy(claims, base.Map)
	claims["role"] = "no_such_role"
	tok, _ := e.keys.Sign(claims)
	r := e.req("GET", "/user", nil, tok)
	if r.Status != 200 || r.json(t)["role"] != "authenticated" {
		t.Fatalf("GET /user with an unknown role claim: %d %s", r.Status, r.Body)
	}
	admin, _ := e.keys.SignHS256(gojwt.MapClaims{"role": "no_such_role", "exp": e.clock.now().Add(time.Hour).Unix()})
	wantErr(t, e.req("GET", "/admin/users", nil, admin), 403, "not_admin", "User not allowed")
}
