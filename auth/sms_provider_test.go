package auth

import "testing"

// TestNoSMSProvider: with no SMS sender configured and no dev mailbox, a
// code that would have to be texted fails as the reference fails without a
// provider (500 unexpected_failure "Unable to get SMS provider"), and
// nothing is half-stored; numbers with a fixed test code still get one,
// which the reference does not send (message_id "test-otp").
func TestNoSMSProvider(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) {
		c.PhoneEnabled = true
		c.DevMailbox = false
		c.SMSTestOTP = map[string]string{"15550001111": "123456"}
	})
	wantErr(t, e.req("POST", "/otp", `{"phone":"+15550009999"}`, ""), 500, "unexpected_failure", "Unable to get SMS provider")
	wantErr(t, e.req("POST", "/signup", `{"phone":"+15550009998","password":"secret123"}`, ""), 500, "unexpected_failure", "Unable to get SMS provider")
	var n int
	if err := e.db.Admin.QueryRow(t.Context(), `SELECT count(*) FROM auth.users WHERE phone IN ('15550009999', '15550009998')`).Scan(&n); err != nil || n != 0 {
		t.Errorf("users left behind: %d (%v)", n, err)
	}

	r := e.req("POST", "/otp", `{"phone":"+15550001111"}`, "")
	if r.Status != 200 || r.json(t)["message_id"] != "test-otp" {
		t.Fatalf("test number: %d %s", r.Status, r.Body)
	}
	v := e.req("POST", "/verify", map[string]any{"type": "sms", "phone": "15550001111", "token": "123456"}, "")
	if v.Status != 200 || v.json(t)["access_token"] == nil {
		t.Fatalf("verify the test code: %d %s", v.Status, v.Body)
	}
}

// TestDevMailboxIsTheSMSProvider: in development the dev mailbox takes the
// codes, so phone flows can be tried without a provider.
func TestDevMailboxIsTheSMSProvider(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.PhoneEnabled = true })
	if r := e.req("POST", "/otp", `{"phone":"+15550007777"}`, ""); r.Status != 200 {
		t.Fatalf("otp with the dev mailbox: %d %s", r.Status, r.Body)
	}
	if m := e.mails("15550007777"); len(m) != 1 || m[0].Token == "" {
		t.Errorf("mailbox holds %v", m)
	}
}
