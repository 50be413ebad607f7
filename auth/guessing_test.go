package auth

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// signIn is a password grant for email from the client address ip, served
// by svc.
func (e *env) signIn(svc *Service, ip, email, password string) *resp {
	e.t.Helper()
	return e.reqOn(svc, ip, "POST", "/token?grant_type=password", map[string]any{"email": email, "password": password}, "")
}

// tally counts answers by status, checking that every refusal is the
// reference's rate-limit body and every failure its invalid_credentials.
func tally(t *testing.T, rs []*resp) (ok, invalid, limited int) {
	t.Helper()
	for _, r := range rs {
		switch r.Status {
		case 200:
			ok++
		case 400:
			wantErr(t, r, 400, "invalid_credentials", "Invalid login credentials")
			invalid++
		default:
			wantErr(t, r, 429, "over_request_rate_limit", "Request rate limit reached")
			limited++
		}
	}
	return ok, invalid, limited
}

// A guesser on a shared address (campus, carrier NAT) hammering one
// account gets a few tries, then waits; the other users behind the same
// address, and the account's owner anywhere else, still sign in. Two nodes
// on one database count as one.
func TestPasswordGuessingSharedAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) {
		c.MailerAutoconfirm = true
		c.RateLimits = RateLimits{Token: 10, PasswordFailures: 3, PasswordMaxDelay: time.Minute}
	})
	e.signUp("alice@example.com", "alice-pw")
	e.signUp("bob@example.com", "bob-pw")
	nodes := []*Service{e.svc, e.node()}
	const shared, elsewhere = "203.0.113.7", "198.51.100.1"

	var rs []*resp
	for i := range 30 {
		rs = append(rs, e.signIn(nodes[i%2], shared, "alice@example.com", fmt.Sprintf("guess-%d", i)))
	}
	if _, invalid, limited := tally(t, rs); invalid != 3 || limited != 27 {
		t.Fatalf("30 guesses: %d checked, %d refused; want 3 checked", invalid, limited)
	}
	// The shared address is over its per-IP budget on both nodes now, yet
	// another user behind it signs in.
	for _, n := range nodes {
		if r := e.signIn(n, shared, "bob@example.com", "bob-pw"); r.Status != 200 {
			t.Fatalf("bob behind the guesser's address: %d %s", r.Status, r.Body)
		}
	}
	// The owner signs in from anywhere else at once.
	if r := e.signIn(nodes[1], elsewhere, "alice@example.com", "alice-pw"); r.Status != 200 {
		t.Fatalf("alice elsewhere: %d %s", r.Status, r.Body)
	}
	// From the guesser's own address she waits like the guesser...
	if r := e.signIn(nodes[0], shared, "alice@example.com", "alice-pw"); r.Status != 429 {
		t.Fatalf("alice from the guesser's address during the delay: %d %s", r.Status, r.Body)
	}
	// ...until the budget's window and the delay have passed.
	e.clock.add(tokenWindow)
	if r := e.signIn(nodes[0], shared, "alice@example.com", "alice-pw"); r.Status != 200 {
		t.Fatalf("alice after the delay: %d %s", r.Status, r.Body)
	}
	// Her correct password cleared that address's failures.
	rs = rs[:0]
	for i := range 4 {
		rs = append(rs, e.signIn(nodes[1], shared, "alice@example.com", fmt.Sprintf("typo-%d", i)))
	}
	if _, invalid, limited := tally(t, rs); invalid != 3 || limited != 1 {
		t.Fatalf("after a sign-in: %d checked, %d refused; want the count started over", invalid, limited)
	}
	// An address with no account is limited the same way, so the limits
	// do not tell which addresses have accounts.
	rs = rs[:0]
	for i := range 4 {
		rs = append(rs, e.signIn(nodes[i%2], elsewhere, "nobody@example.com", fmt.Sprintf("guess-%d", i)))
	}
	if _, invalid, limited := tally(t, rs); invalid != 3 || limited != 1 {
		t.Fatalf("unknown address: %d checked, %d refused; want 3 checked", invalid, limited)
	}
}

// Racing guesses are counted exactly: of twenty at once, on two nodes,
// only the free ones are checked.
func TestPasswordGuessingConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.MailerAutoconfirm = true; c.RateLimits = RateLimits{PasswordFailures: 3} })
	e.signUp("race@example.com", "race-pw")
	nodes := []*Service{e.svc, e.node()}
	rs := make([]*resp, 20)
	var wg sync.WaitGroup
	for i := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs[i] = e.signIn(nodes[i%2], "203.0.113.7", "race@example.com", fmt.Sprintf("guess-%d", i))
		}()
	}
	wg.Wait()
	if _, invalid, limited := tally(t, rs); invalid != 3 || limited != 17 {
		t.Fatalf("20 racing guesses: %d checked, %d refused; want 3 checked", invalid, limited)
	}
}

// After the free failures each attempt waits a delay that doubles from one
// second up to the cap; failures are forgotten a day after the last one.
func TestPasswordGuessingDelays(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) {
		c.MailerAutoconfirm = true
		c.RateLimits = RateLimits{PasswordFailures: 2, PasswordMaxDelay: 8 * time.Second}
	})
	e.signUp("slow@example.com", "slow-pw")
	start := e.clock.now()
	try := func(want int) {
		t.Helper()
		if r := e.signIn(e.svc, "203.0.113.7", "slow@example.com", "wrong"); r.Status != want {
			t.Fatalf("at +%v: %d %s, want %d", e.clock.now().Sub(start), r.Status, r.Body, want)
		}
	}
	try(400)
	try(400)
	for _, wait := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second} {
		try(429)
		e.clock.add(wait - time.Millisecond)
		try(429)
		e.clock.add(time.Millisecond)
		try(400)
	}
	e.clock.add(failureMemory)
	try(400)
	try(400)
	try(429)
}

// Guessing spread over many addresses: once the account has had enough
// failures from all of them together, an address that has failed on it
// waits before its next try, while an address new to it still gets one
// (the owner's, most likely).
func TestPasswordGuessingManyAddresses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) {
		c.MailerAutoconfirm = true
		c.RateLimits = RateLimits{PasswordFailures: 3, PasswordAccountFailures: 4, PasswordMaxDelay: time.Minute}
	})
	e.signUp("target@example.com", "target-pw")
	var rs []*resp
	for i := range 6 {
		rs = append(rs, e.signIn(e.svc, fmt.Sprintf("10.1.0.%d", i), "target@example.com", "guess"))
	}
	if _, invalid, _ := tally(t, rs); invalid != 6 {
		t.Fatalf("first guess from each of 6 addresses: %d checked, want 6", invalid)
	}
	// Within its own 3 free failures, but the account is over its 4.
	if r := e.signIn(e.svc, "10.1.0.0", "target@example.com", "guess"); r.Status != 429 {
		t.Fatalf("second guess from a failed address: %d %s", r.Status, r.Body)
	}
	if r := e.signIn(e.svc, "10.2.0.1", "target@example.com", "target-pw"); r.Status != 200 {
		t.Fatalf("owner from a new address: %d %s", r.Status, r.Body)
	}
	// 6 failures, 2 past the account's free 4: 4 seconds.
	e.clock.add(4 * time.Second)
	if r := e.signIn(e.svc, "10.1.0.0", "target@example.com", "guess"); r.Status != 400 {
		t.Fatalf("after the account's delay: %d %s", r.Status, r.Body)
	}
}
