package auth

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/basaltdev/basalt/auth/totp"
)

// totpUser is a signed-up user with an enrolled TOTP factor.
type totpUser struct {
	e              *env
	token          string // an access token of the user's session
	factor, secret string
}

// newTOTPUser signs email up and enrols a TOTP factor from ip.
func newTOTPUser(e *env, ip, email string) *totpUser {
	e.t.Helper()
	s := e.signUp(email, "secret123")
	u := &totpUser{e: e, token: s["access_token"].(string)}
	r := e.reqFrom(ip, "POST", "/factors", `{"factor_type":"totp"}`, u.token)
	if r.Status != 200 {
		e.t.Fatalf("enrol: %d %s", r.Status, r.Body)
	}
	f := r.json(e.t)
	u.factor, u.secret = f["id"].(string), f["totp"].(map[string]any)["secret"].(string)
	return u
}

// challenge opens a challenge from ip and returns its id.
func (u *totpUser) challenge(ip string) string {
	u.e.t.Helper()
	r := u.e.reqFrom(ip, "POST", "/factors/"+u.factor+"/challenge", `{}`, u.token)
	if r.Status != 200 {
		u.e.t.Fatalf("challenge: %d %s", r.Status, r.Body)
	}
	return r.json(u.e.t)["id"].(string)
}

// verify answers challenge ch with code from ip. Safe from any goroutine.
func (u *totpUser) verify(ip, ch, code string) *resp {
	return u.e.reqFrom(ip, "POST", "/factors/"+u.factor+"/verify", fmt.Sprintf(`{"challenge_id":%q,"code":%q}`, ch, code), u.token)
}

// code is the factor's code at the test clock's time; wrong is a code that
// is not.
func (u *totpUser) code() string {
	u.e.t.Helper()
	c, err := totp.Code(u.secret, u.e.clock.now())
	if err != nil {
		u.e.t.Fatal(err)
	}
	return c
}

func (u *totpUser) wrong() string {
	if u.code() == "000000" {
		return "111111"
	}
	return "000000"
}

// A code accepted once is refused on a new challenge within its time step,
// and so is the code of the step before (RFC 6238 §5.2); the next step's
// code is accepted.
func TestTOTPCodeAcceptedOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	u := newTOTPUser(e, "10.0.0.1", "once@example.com")
	code := u.code()
	if r := u.verify("10.0.0.1", u.challenge("10.0.0.1"), code); r.Status != 200 {
		t.Fatalf("first verify: %d %s", r.Status, r.Body)
	}
	// A new aal1 session proves the second factor again.
	s := e.req("POST", "/token?grant_type=password", `{"email":"once@example.com","password":"secret123"}`, "").json(t)
	u.token = s["access_token"].(string)
	ch := u.challenge("10.0.0.1")
	wantErr(t, u.verify("10.0.0.1", ch, code), 422, "mfa_verification_failed", "Invalid TOTP code entered")
	prev, _ := totp.Code(u.secret, e.clock.now().Add(-totp.Period*time.Second))
	wantErr(t, u.verify("10.0.0.1", ch, prev), 422, "mfa_verification_failed", "Invalid TOTP code entered")
	e.clock.add(totp.Period * time.Second)
	if r := u.verify("10.0.0.1", ch, u.code()); r.Status != 200 {
		t.Fatalf("the next step's code: %d %s", r.Status, r.Body)
	}
}

// One code sent to several challenges at once is accepted exactly once.
func TestTOTPCodeConcurrentVerifies(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	u := newTOTPUser(e, "10.0.0.1", "race@example.com")
	const n = 6
	chs := make([]string, n)
	for i := range chs {
		chs[i] = u.challenge("10.0.0.1")
	}
	code := u.code()
	results := make([]*resp, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range chs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = u.verify("10.0.0.1", chs[i], code)
		}()
	}
	close(start)
	wg.Wait()
	accepted := 0
	for _, r := range results {
		switch r.Status {
		case 200:
			accepted++
		case 422:
			wantErr(t, r, 422, "mfa_verification_failed", "Invalid TOTP code entered")
		default:
			t.Errorf("verify: %d %s", r.Status, r.Body)
		}
	}
	if accepted != 1 {
		t.Fatalf("%d of %d concurrent verifications of one code accepted, want exactly 1", accepted, n)
	}
}
