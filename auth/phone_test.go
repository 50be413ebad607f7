package auth

import (
	"context"
	"testing"
	"time"

	"github.com/basaltdev/basalt/auth/mail"
)

// Phone sign-up with a password, confirmed by SMS; then a phone change.
func TestPhoneSignupAndChange(t *testing.T) {
	t.Parallel()
	box := &smsBox{sent: map[string]string{}}
	e := newEnv(t, func(c *Config) { c.PhoneEnabled = true; c.SMSMaxFrequency = time.Second }, WithSMSSender(box))
	r := e.req("POST", "/signup", `{"phone":"+15550001111","password":"secret123","channel":"sms","data":{"nick":"p"}}`, "")
	u := r.json(t)
	if r.Status != 200 || u["phone"] != "15550001111" || u["phone_confirmed_at"] != nil || u["confirmation_sent_at"] == nil {
		t.Fatalf("phone signup %d %s", r.Status, r.Body)
	}
	wantErr(t, e.req("POST", "/token?grant_type=password", `{"phone":"15550001111","password":"secret123"}`, ""), 400, "phone_not_confirmed", "Phone not confirmed")
	// Resend, then verify with the newest code.
	e.clock.add(2 * time.Second)
	if r := e.req("POST", "/resend", `{"type":"sms","phone":"+15550001111"}`, ""); r.Status != 200 || r.json(t)["message_id"] != "msg-1" {
		t.Fatalf("resend sms %d %s", r.Status, r.Body)
	}
	v := e.req("POST", "/verify", map[string]any{"type": "sms", "phone": "15550001111", "token": box.code("15550001111")}, "")
	if v.Status != 200 {
		t.Fatalf("verify %d %s", v.Status, v.Body)
	}
	s := e.req("POST", "/token?grant_type=password", `{"phone":"+1 555 000 1111","password":"secret123"}`, "")
	if s.Status != 200 {
		t.Fatalf("phone sign-in %d %s", s.Status, s.Body)
	}
	at := s.json(t)["access_token"].(string)
	// Phone change: a code to the new number, verified as phone_change.
	e.clock.add(2 * time.Second)
	up := e.req("PUT", "/user", `{"phone":"15550002222"}`, at)
	if up.Status != 200 || up.json(t)["new_phone"] != "15550002222" {
		t.Fatalf("phone change %d %s", up.Status, up.Body)
	}
	wantErr(t, e.req("POST", "/verify", map[string]any{"type": "phone_change", "phone": "15550002222", "token": "000000"}, ""), 403, "otp_expired", "")
	pc := e.req("POST", "/verify", map[string]any{"type": "phone_change", "phone": "15550002222", "token": box.code("15550002222")}, "")
	if pc.Status != 200 || pc.json(t)["user"].(map[string]any)["phone"] != "15550002222" {
		t.Fatalf("verify phone change %d %s", pc.Status, pc.Body)
	}
	// A second account cannot take that number.
	wantErr(t, e.req("POST", "/admin/users", `{"phone":"15550002222"}`, e.service()), 422, "phone_exists", "")
}

// recorder is a Sender that keeps messages, standing in for a mail provider.
type recorder struct{ msgs []*mail.Message }

func (r *recorder) Send(_ context.Context, m *mail.Message) error {
	r.msgs = append(r.msgs, m)
	return nil
}

func TestWithMailerAndLegacyMagicLink(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	e := newEnv(t, func(c *Config) { c.MailerAutoconfirm = true; c.DevMailbox = false }, WithMailer(rec))
	e.signUp("ml@example.com", "secret123")
	if r := e.req("POST", "/magiclink", `{"email":"ml@example.com"}`, ""); r.Status != 200 {
		t.Fatalf("magiclink %d %s", r.Status, r.Body)
	}
	if len(rec.msgs) != 1 || rec.msgs[0].Type != "magic_link" || rec.msgs[0].To != "ml@example.com" {
		t.Fatalf("sent %+v", rec.msgs)
	}
	if e.svc.Mailbox() != nil {
		t.Fatal("no dev mailbox when it is off")
	}
	if r := e.req("GET", "/admin/dev/mailbox", nil, e.service()); r.Status != 404 {
		t.Fatalf("mailbox endpoint without a mailbox: %d", r.Status)
	}
}
