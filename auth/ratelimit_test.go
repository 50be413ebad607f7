package auth

import (
	"fmt"
	"testing"
	"time"
)

func TestRateLimitPerIP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) {
		c.MailerAutoconfirm = true
		c.RateLimits = RateLimits{OTP: 2, Token: 3, Verify: 1}
	})
	e.signUp("rl@example.com", "secret123") // counts as one OTP-class request
	if r := e.req("POST", "/recover", `{"email":"rl@example.com"}`, ""); r.Status != 200 {
		t.Fatalf("second request %d", r.Status)
	}
	wantErr(t, e.req("POST", "/otp", `{"email":"rl@example.com"}`, ""), 429, "over_request_rate_limit", "Request rate limit reached")
	// Another client address has its own budget.
	if r := e.reqFrom("10.0.0.2", "POST", "/otp", `{"email":"other@example.com"}`, ""); r.Status != 200 {
		t.Fatalf("other ip %d %s", r.Status, r.Body)
	}
	body := `{"email":"rl@example.com","password":"secret123"}`
	for i := range 3 {
		if r := e.req("POST", "/token?grant_type=password", body, ""); r.Status != 200 {
			t.Fatalf("token %d: %d", i, r.Status)
		}
	}
	wantErr(t, e.req("POST", "/token?grant_type=password", body, ""), 429, "over_request_rate_limit", "")
	// The window ends after 5 minutes.
	e.clock.add(5 * time.Minute)
	if r := e.req("POST", "/token?grant_type=password", body, ""); r.Status != 200 {
		t.Fatalf("after window %d", r.Status)
	}
	e.req("POST", "/verify", `{"type":"email","email":"rl@example.com","token":"123456"}`, "")
	wantErr(t, e.req("POST", "/verify", `{"type":"email","email":"rl@example.com","token":"123456"}`, ""), 429, "over_request_rate_limit", "")
}

func TestRateLimitEmailBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.RateLimits = RateLimits{EmailSent: 2} })
	for i := range 2 {
		if r := e.req("POST", "/signup", fmt.Sprintf(`{"email":"b%d@example.com","password":"secret123"}`, i), ""); r.Status != 200 {
			t.Fatalf("signup %d: %d %s", i, r.Status, r.Body)
		}
	}
	wantErr(t, e.req("POST", "/signup", `{"email":"b9@example.com","password":"secret123"}`, ""), 429, "over_email_send_rate_limit", "email rate limit exceeded")
	// Refused sends change nothing: the user was not created.
	var n int
	if err := e.db.Admin.QueryRow(t.Context(), `SELECT count(*) FROM auth.users WHERE email = 'b9@example.com'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("user created despite 429: %d %v", n, err)
	}
	e.clock.add(time.Hour)
	if r := e.req("POST", "/signup", `{"email":"b9@example.com","password":"secret123"}`, ""); r.Status != 200 {
		t.Fatalf("after an hour %d", r.Status)
	}
}

func TestRateLimitAnonymous(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.AnonymousEnabled = true; c.RateLimits = RateLimits{Anonymous: 1} })
	if r := e.req("POST", "/signup", `{}`, ""); r.Status != 200 {
		t.Fatal(r.Status)
	}
	wantErr(t, e.req("POST", "/signup", `{}`, ""), 429, "over_request_rate_limit", "")
}

// TestRateLimitAcrossNodes: two auth services on one database (two nodes
// behind a load balancer) share one budget per address.
func TestRateLimitAcrossNodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.RateLimits = RateLimits{Verify: 3} })
	other := e.node()
	verify := `{"type":"email","email":"nobody@example.com","token":"123456"}`
	for i, svc := range []*Service{e.svc, other, e.svc} {
		if r := e.reqOn(svc, "10.0.0.9", "POST", "/verify", verify, ""); r.Status == 429 {
			t.Fatalf("request %d refused within the budget", i+1)
		}
	}
	wantErr(t, e.reqOn(other, "10.0.0.9", "POST", "/verify", verify, ""), 429, "over_request_rate_limit", "Request rate limit reached")
	wantErr(t, e.reqOn(e.svc, "10.0.0.9", "POST", "/verify", verify, ""), 429, "over_request_rate_limit", "Request rate limit reached")
}
