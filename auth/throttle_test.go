package auth

import (
	"sync"
	"testing"
	"time"
)

// The per-address gap between mails (SMTP_MAX_FREQUENCY) holds when
// requests race, on one node or on two nodes sharing the database: of ten
// simultaneous requests for a sign-in link to one address, exactly one
// sends a mail and the others get the reference's 429.
func TestMailThrottleConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.MailerAutoconfirm = true; c.MaxEmailFrequency = time.Second })
	e.signUp("burst@example.com", "secret123")
	nodes := []*Service{e.svc, e.node()}
	// /otp (magic link) and /recover share the recovery mail's gap.
	paths := []string{"/otp", "/recover"}
	results := make([]*resp, 10)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = e.reqOn(nodes[i%2], "10.0.0.1", "POST", paths[i/2%2], `{"email":"burst@example.com"}`, "")
		}()
	}
	wg.Wait()
	sent := 0
	for _, r := range results {
		if r.Status == 200 {
			sent++
			continue
		}
		wantErr(t, r, 429, "over_email_send_rate_limit", "For security purposes, you can only request this after 1 seconds.")
	}
	mails := func() int {
		return len(nodes[0].Mailbox().List("burst@example.com")) + len(nodes[1].Mailbox().List("burst@example.com"))
	}
	if sent != 1 || mails() != 1 {
		t.Fatalf("%d requests answered 200 and %d mails went out; want exactly one of each", sent, mails())
	}
	// Once the gap has passed, the next request sends again.
	e.clock.add(time.Second)
	if r := e.reqOn(nodes[1], "10.0.0.1", "POST", "/otp", `{"email":"burst@example.com"}`, ""); r.Status != 200 || mails() != 2 {
		t.Fatalf("after the gap: %d %s, %d mails", r.Status, r.Body, mails())
	}
}
