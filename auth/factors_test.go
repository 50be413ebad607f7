package auth

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/basaltdev/basalt/auth/totp"
)

func TestMFATOTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	s := e.signUp("mfa@example.com", "secret123")
	at := s["access_token"].(string)
	other := e.req("POST", "/token?grant_type=password", `{"email":"mfa@example.com","password":"secret123"}`, "").json(t)
	wantErr(t, e.req("POST", "/factors", `{"factor_type":"phone"}`, at), 422, "mfa_phone_enroll_not_enabled", "")
	en := e.req("POST", "/factors", `{"factor_type":"totp","friendly_name":"phone app"}`, at)
	f := en.json(t)
	tp := f["totp"].(map[string]any)
	if en.Status != 200 || f["type"] != "totp" || !strings.HasPrefix(tp["qr_code"].(string), "<svg") ||
		!strings.HasPrefix(tp["uri"].(string), "otpauth://totp/localhost:3000:mfa@example.com?") {
		t.Fatalf("enroll %d %s", en.Status, en.Body)
	}
	wantErr(t, e.req("POST", "/factors", `{"factor_type":"totp","friendly_name":"phone app"}`, at), 422, "mfa_factor_name_conflict", "")
	fid := f["id"].(string)
	wantErr(t, e.req("POST", "/factors/00000000-0000-0000-0000-000000000009/challenge", `{}`, at), 404, "mfa_factor_not_found", "Factor not found")
	ch := e.req("POST", "/factors/"+fid+"/challenge", map[string]any{"factorId": fid}, at).json(t)
	if ch["type"] != "totp" || ch["expires_at"].(float64) <= float64(e.clock.now().Unix()) {
		t.Fatalf("challenge %v", ch)
	}
	wantErr(t, e.req("POST", "/factors/"+fid+"/verify", map[string]any{"challenge_id": ch["id"], "code": ""}, at), 400, "validation_failed", "Code needs to be non-empty")
	wantErr(t, e.req("POST", "/factors/"+fid+"/verify", map[string]any{"challenge_id": ch["id"], "code": "000000"}, at),
		422, "mfa_verification_failed", "Invalid TOTP code entered")
	code, _ := totp.Code(tp["secret"].(string), e.clock.now())
	v := e.req("POST", "/factors/"+fid+"/verify", map[string]any{"challenge_id": ch["id"], "code": code}, at)
	if v.Status != 200 {
		t.Fatalf("verify %d %s", v.Status, v.Body)
	}
	vm := v.json(t)
	c, _ := e.keys.Verify(vm["access_token"].(string), e.clock.now())
	if c.Map["aal"] != "aal2" || c.Map["amr"].([]any)[0].(map[string]any)["method"] != "totp" {
		t.Fatalf("claims %v", c.Map)
	}
	if vm["user"].(map[string]any)["factors"].([]any)[0].(map[string]any)["status"] != "verified" {
		t.Fatalf("factor not verified: %s", v.Body)
	}
	// The other aal1 session is signed out; the old refresh token rotated away.
	wantErr(t, e.req("GET", "/user", nil, other["access_token"].(string)), 403, "session_not_found", "")
	// Refresh keeps aal2.
	rr := e.refresh(vm["refresh_token"].(string)).json(t)
	if c, _ := e.keys.Verify(rr["access_token"].(string), e.clock.now()); c.Map["aal"] != "aal2" {
		t.Fatalf("refresh lost aal2: %v", c.Map["aal"])
	}
	// A fresh aal1 session cannot change the password nor unenroll.
	aal1 := e.req("POST", "/token?grant_type=password", `{"email":"mfa@example.com","password":"secret123"}`, "").json(t)["access_token"].(string)
	wantErr(t, e.req("PUT", "/user", `{"password":"changed-1"}`, aal1), 401, "insufficient_aal", "")
	wantErr(t, e.req("DELETE", "/factors/"+fid, nil, aal1), 422, "insufficient_aal", "AAL2 required to unenroll verified factor")
	wantErr(t, e.req("POST", "/factors", `{"factor_type":"totp","friendly_name":"second"}`, aal1), 403, "insufficient_aal", "AAL2 required to enroll a new factor")
	// Expired challenge.
	ch2 := e.req("POST", "/factors/"+fid+"/challenge", `{}`, aal1).json(t)
	e.clock.add(301 * time.Second)
	code, _ = totp.Code(tp["secret"].(string), e.clock.now())
	wantErr(t, e.req("POST", "/factors/"+fid+"/verify", map[string]any{"challenge_id": ch2["id"], "code": code}, aal1), 422, "mfa_challenge_expired", "")
	// Admin view and unenroll from aal2.
	uid := vm["user"].(map[string]any)["id"].(string)
	if l := e.req("GET", "/admin/users/"+uid+"/factors", nil, e.service()); l.Status != 200 || !strings.Contains(string(l.Body), fid) {
		t.Fatalf("admin factors %d %s", l.Status, l.Body)
	}
	if d := e.req("DELETE", "/factors/"+fid, nil, rr["access_token"].(string)); d.Status != 200 || d.json(t)["id"] != fid {
		t.Fatalf("unenroll %d %s", d.Status, d.Body)
	}
	var aal string
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT aal::text FROM auth.sessions WHERE id = $1`, c.SessionID).Scan(&aal); err != nil || aal != "aal1" {
		t.Fatalf("session aal after unenroll = %s (%v)", aal, err)
	}
}

func TestMFAAnonymousRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.AnonymousEnabled = true })
	at := e.req("POST", "/signup", `{}`, "").json(t)["access_token"].(string)
	wantErr(t, e.req("POST", "/factors", `{"factor_type":"totp"}`, at), 403, "no_authorization", "Anonymous user not allowed to perform these actions")
}

// smsBox records texts, standing in for an SMS provider.
type smsBox struct {
	mu   sync.Mutex
	sent map[string]string
}

func (b *smsBox) SendSMS(_ context.Context, phone, body string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sent[phone] = body
	return "msg-1", nil
}

func (b *smsBox) code(phone string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := strings.Fields(b.sent[phone])
	return f[len(f)-1]
}

func TestPhoneOTP(t *testing.T) {
	t.Parallel()
	box := &smsBox{sent: map[string]string{}}
	e := newEnv(t, func(c *Config) { c.PhoneEnabled = true }, WithSMSSender(box))
	wantErr(t, e.req("POST", "/otp", `{"phone":"12ab"}`, ""), 400, "validation_failed", "Invalid phone number format (E.164 required)")
	r := e.req("POST", "/otp", `{"phone":"+1 555 123 4567","channel":"sms"}`, "")
	if r.Status != 200 || r.json(t)["message_id"] != "msg-1" {
		t.Fatalf("otp %d %s", r.Status, r.Body)
	}
	wantErr(t, e.req("POST", "/verify", map[string]any{"type": "sms", "phone": "+15551234567", "token": "000000"}, ""), 403, "otp_expired", "")
	v := e.req("POST", "/verify", map[string]any{"type": "sms", "phone": "+15551234567", "token": box.code("15551234567")}, "")
	if v.Status != 200 {
		t.Fatalf("verify %d %s", v.Status, v.Body)
	}
	u := v.json(t)["user"].(map[string]any)
	if u["phone"] != "15551234567" || u["phone_confirmed_at"] == nil || u["email"] != "" || u["app_metadata"].(map[string]any)["provider"] != "phone" {
		t.Fatalf("user %v", u)
	}
	// Codes expire after the SMS OTP lifetime.
	e.clock.add(61 * time.Second)
	e.req("POST", "/otp", `{"phone":"15551234567"}`, "")
	e.clock.add(61 * time.Second)
	wantErr(t, e.req("POST", "/verify", map[string]any{"type": "sms", "phone": "15551234567", "token": box.code("15551234567")}, ""), 403, "otp_expired", "")
}

func TestAdminDeleteFactor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	s := e.signUp("adf@example.com", "secret123")
	f := e.req("POST", "/factors", `{"factor_type":"totp"}`, s["access_token"].(string)).json(t)
	uid := s["user"].(map[string]any)["id"].(string)
	d := e.req("DELETE", "/admin/users/"+uid+"/factors/"+f["id"].(string), nil, e.service())
	if d.Status != 200 || d.json(t)["id"] != f["id"] || d.json(t)["factor_type"] != "totp" {
		t.Fatalf("admin delete factor %d %s", d.Status, d.Body)
	}
	wantErr(t, e.req("DELETE", "/admin/users/"+uid+"/factors/"+f["id"].(string), nil, e.service()), 404, "mfa_factor_not_found", "")
}
