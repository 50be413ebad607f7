package auth

import (
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// TestHashPoolFullAnswers429 fills the password hash pool with one slow
// sign-up and shows that, while it runs, a request that needs bcrypt is
// refused at once with 429 over_request_rate_limit and Retry-After, and
// that requests without bcrypt (a refresh, /settings) are answered as
// usual; once the pool frees up, passwords work again.
func TestHashPoolFullAnswers429(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		autoconfirm(c)
		c.BcryptCost = 15 // seconds per hash: the pool stays full while the test looks
		c.PasswordHashWorkers = 1
		c.PasswordHashMaxWait = 50 * time.Millisecond
	})
	// A user whose stored hash is cheap, so its sign-in is quick when the
	// pool is free; its session gives a refresh token.
	cheap, err := bcrypt.GenerateFromPassword([]byte("secret123"), 4)
	if err != nil {
		t.Fatal(err)
	}
	if r := e.req("POST", "/admin/users", map[string]any{"email": "fast@example.com", "password_hash": string(cheap),
		"email_confirm": true}, e.service()); r.Status != 200 {
		t.Fatalf("create user: %d %s", r.Status, r.Body)
	}
	signIn := `{"email":"fast@example.com","password":"secret123"}`
	r := e.reqFrom("10.0.0.2", "POST", "/token?grant_type=password", signIn, "")
	if r.Status != 200 {
		t.Fatalf("sign-in with a free pool: %d %s", r.Status, r.Body)
	}
	refresh := r.json(t)["refresh_token"].(string)

	slow := make(chan *resp, 1)
	go func() {
		slow <- e.reqFrom("10.0.0.3", "POST", "/signup", `{"email":"slow@example.com","password":"secret123"}`, "")
	}()
	deadline := time.Now().Add(10 * time.Second)
	for e.svc.hashes.busy() < 1 {
		if time.Now().After(deadline) {
			t.Fatal("the slow sign-up never started hashing")
		}
		time.Sleep(time.Millisecond)
	}
	stillHashing := func(what string) {
		t.Helper()
		select {
		case r := <-slow:
			t.Fatalf("%s: the slow sign-up (%d) finished first; the pool was not full while it ran", what, r.Status)
		default:
		}
	}

	start := time.Now()
	r = e.reqFrom("10.0.0.4", "POST", "/signup", `{"email":"next@example.com","password":"secret123"}`, "")
	took := time.Since(start)
	stillHashing("sign-up")
	wantErr(t, r, 429, "over_request_rate_limit", "Request rate limit reached")
	if got := r.Header.Get("Retry-After"); got != "1" {
		t.Fatalf("Retry-After = %q, want 1", got)
	}
	if took > time.Second {
		t.Fatalf("the refusal took %s; it should come after the pool's short wait", took)
	}
	// Sign-in compares with bcrypt on the same pool.
	wantErr(t, e.reqFrom("10.0.0.5", "POST", "/token?grant_type=password", signIn, ""), 429, "over_request_rate_limit", "")
	stillHashing("sign-in")

	// Nothing else waits for the pool.
	if r := e.reqFrom("10.0.0.6", "POST", "/token?grant_type=refresh_token", `{"refresh_token":"`+refresh+`"}`, ""); r.Status != 200 {
		t.Fatalf("refresh while the pool is full: %d %s", r.Status, r.Body)
	}
	if r := e.reqFrom("10.0.0.6", "GET", "/settings", nil, ""); r.Status != 200 {
		t.Fatalf("settings while the pool is full: %d %s", r.Status, r.Body)
	}
	stillHashing("refresh")

	if r := <-slow; r.Status != 200 {
		t.Fatalf("the slow sign-up: %d %s", r.Status, r.Body)
	}
	if r := e.reqFrom("10.0.0.5", "POST", "/token?grant_type=password", signIn, ""); r.Status != 200 {
		t.Fatalf("sign-in once the pool is free: %d %s", r.Status, r.Body)
	}
}
