package auth

import (
	"testing"

	gojwt "github.com/golang-jwt/jwt/v5"
)

// Error paths of the contract that need no prior state beyond one signed-in
// user: each answers with the reference's status, code and message, and
// (checked at the end) changes nothing.
func TestErrorPaths(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.MailerAutoconfirm = true })
	at := e.signUp("err@example.com", "secret123")["access_token"].(string)
	svc := e.service()
	adminWithSession, _ := e.keys.Sign(gojwt.MapClaims{"role": "service_role", "session_id": "9b7a0c3e-0000-4000-8000-000000000000"})
	for _, tc := range []struct {
		name, method, path, body, bearer string
		status                           int
		code, msg                        string
	}{
		{"otp both", "POST", "/otp", `{"email":"a@b.co","phone":"15550001111"}`, "", 400, "validation_failed", "Only an email address or phone number should be provided"},
		{"otp email with channel", "POST", "/otp", `{"email":"a@b.co","channel":"sms"}`, "", 400, "validation_failed", ""},
		{"otp bad pkce", "POST", "/otp", `{"email":"a@b.co","code_challenge":"x","code_challenge_method":"s256"}`, "", 400, "validation_failed", ""},
		{"otp phone disabled", "POST", "/otp", `{"phone":"15550001111"}`, "", 422, "phone_provider_disabled", ""},
		{"verify no type", "POST", "/verify", `{"token":"123456","email":"a@b.co"}`, "", 400, "validation_failed", "Verify requires a verification type"},
		{"verify both", "POST", "/verify", `{"type":"signup","token":"1","token_hash":"2"}`, "", 400, "validation_failed", "Verify requires either a token or a token hash"},
		{"verify bad type", "POST", "/verify", `{"type":"nope","token":"1","email":"a@b.co"}`, "", 400, "validation_failed", ""},
		{"verify bad phone", "POST", "/verify", `{"type":"sms","token":"1","phone":"abc"}`, "", 400, "validation_failed", "Invalid phone number format (E.164 required)"},
		{"verify unknown otp", "POST", "/verify", `{"type":"magiclink","token":"123456","email":"err@example.com"}`, "", 403, "otp_expired", "Token has expired or is invalid"},
		{"resend no address", "POST", "/resend", `{"type":"signup"}`, "", 400, "validation_failed", "Missing email address or phone number"},
		{"resend signup without email", "POST", "/resend", `{"type":"signup","phone":"15550001111"}`, "", 400, "validation_failed", ""},
		{"recover bad email", "POST", "/recover", `{"email":"nope"}`, "", 400, "validation_failed", "Unable to validate email address: invalid format"},
		{"token refresh empty", "POST", "/token?grant_type=refresh_token", `{}`, "", 400, "validation_failed", "Refresh token is not valid"},
		{"pkce unknown code", "POST", "/token?grant_type=pkce", `{"auth_code":"nope","code_verifier":"x"}`, "", 404, "flow_state_not_found", "invalid flow state, no valid flow state found"},
		{"body too large", "POST", "/signup", `{"email":"` + string(make([]byte, 0)) + `"}` + string(bigBody()), "", 413, "request_entity_too_large", ""},
		{"reauthenticate anon key", "GET", "/reauthenticate", "", e.keys.AnonKey, 403, "bad_jwt", "invalid claim: missing sub claim"},
		{"logout no bearer", "POST", "/logout", "", "", 401, "no_authorization", "This endpoint requires a valid Bearer token"},
		{"factors no bearer", "POST", "/factors", `{"factor_type":"totp"}`, "", 401, "no_authorization", ""},
		{"factor type", "POST", "/factors", `{"factor_type":"sms"}`, at, 400, "validation_failed", ""},
		{"factor bad id", "POST", "/factors/not-a-uuid/challenge", `{}`, at, 404, "validation_failed", ""},
		{"unenroll unknown", "DELETE", "/factors/9b7a0c3e-0000-4000-8000-000000000000", "", at, 404, "mfa_factor_not_found", "Factor not found"},
		{"webauthn enroll", "POST", "/factors", `{"factor_type":"webauthn"}`, at, 422, "mfa_webauthn_enroll_not_enabled", ""},
		{"identities link", "GET", "/user/identities/authorize?provider=github&skip_http_redirect=true", "", at, 404, "manual_linking_disabled", "Manual linking is disabled"},
		{"authorize", "GET", "/authorize?provider=github", "", "", 400, "validation_failed", ""},
		{"admin session missing", "GET", "/admin/users", "", adminWithSession, 403, "session_not_found", ""},
		{"admin bad uuid", "GET", "/admin/users/nope", "", svc, 404, "validation_failed", ""},
		{"admin both passwords", "POST", "/admin/users", `{"email":"x@example.com","password":"secret123","password_hash":"$2a$10$abc"}`, svc, 400, "validation_failed", ""},
		{"admin bad ban", "POST", "/admin/users", `{"email":"x@example.com","ban_duration":"forever"}`, svc, 400, "validation_failed", ""},
		{"admin bad phone", "POST", "/admin/users", `{"phone":"abc"}`, svc, 400, "validation_failed", "Invalid phone number format (E.164 required)"},
		{"admin update unknown", "PUT", "/admin/users/9b7a0c3e-0000-4000-8000-000000000000", `{}`, svc, 404, "user_not_found", "User not found"},
		{"admin delete unknown", "DELETE", "/admin/users/9b7a0c3e-0000-4000-8000-000000000000", `{}`, svc, 404, "user_not_found", ""},
		{"invite bad email", "POST", "/invite", `{"email":"nope"}`, svc, 400, "validation_failed", ""},
		{"invite as user", "POST", "/invite", `{"email":"a@b.co"}`, at, 403, "not_admin", "User not allowed"},
		{"generate link bad email", "POST", "/admin/generate_link", `{"type":"magiclink","email":""}`, svc, 400, "validation_failed", "An email address is required"},
		{"put user bad email", "PUT", "/user", `{"email":"nope"}`, at, 400, "validation_failed", ""},
		{"put user long password", "PUT", "/user", `{"password":"` + string(make72()) + `"}`, at, 400, "validation_failed", "Password cannot be longer than 72 characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			wantErr(t, e.req(tc.method, tc.path, body, tc.bearer), tc.status, tc.code, tc.msg)
		})
	}
	var users, sessions int
	if err := e.db.Admin.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM auth.users), (SELECT count(*) FROM auth.sessions)`).Scan(&users, &sessions); err != nil || users != 1 || sessions != 1 {
		t.Fatalf("errors changed state: %d users, %d sessions (%v)", users, sessions, err)
	}
}

func bigBody() []byte {
	b := make([]byte, maxBody+10)
	for i := range b {
		b[i] = ' '
	}
	return b
}

func make72() []byte {
	b := make([]byte, 73)
	for i := range b {
		b[i] = 'a'
	}
	return b
}

// The rules of the /otp and /verify bodies are declared on their types and
// checked in field order; each keeps the reference's words, and a body
// with several problems gets the one the reference checks first.
func TestBodyRulesKeepTheReferenceWords(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	for _, tc := range []struct{ name, path, body, msg string }{
		{"otp empty", "/otp", `{}`, "One of email or phone must be set"},
		{"otp both", "/otp", `{"email":"a@b.co","phone":"15550001111"}`, "Only an email address or phone number should be provided"},
		{"otp both with channel", "/otp", `{"email":"a@b.co","phone":"15550001111","channel":"sms"}`,
			"Only an email address or phone number should be provided"},
		{"otp email with channel", "/otp", `{"email":"a@b.co","channel":"whatsapp"}`, "Channel should only be specified with Phone OTP"},
		{"otp channel alone", "/otp", `{"channel":"sms"}`, "One of email or phone must be set"},
		{"verify empty", "/verify", `{}`, "Verify requires a verification type"},
		{"verify no type, both tokens", "/verify", `{"token":"1","token_hash":"2"}`, "Verify requires a verification type"},
		{"verify no token", "/verify", `{"type":"signup","email":"a@b.co"}`, "Verify requires either a token or a token hash"},
		{"verify dashes only", "/verify", `{"type":"sms","token":"---","phone":"15550001111"}`, "Verify requires either a token or a token hash"},
		{"verify both tokens", "/verify", `{"type":"signup","token":"1","token_hash":"2","email":"a@b.co"}`,
			"Verify requires either a token or a token hash"},
		{"verify hash with email", "/verify", `{"type":"signup","token_hash":"2","email":"a@b.co"}`, "Only the token_hash and type should be provided"},
		{"verify hash with phone", "/verify", `{"type":"sms","token_hash":"2","phone":"15550001111"}`, "Only the token_hash and type should be provided"},
		{"verify hash with redirect", "/verify", `{"type":"signup","token_hash":"2","redirect_to":"http://localhost:3000"}`,
			"Only the token_hash and type should be provided"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, e.req("POST", tc.path, tc.body, ""), 400, "validation_failed", tc.msg)
		})
	}
}
