package auth

import (
	"context"
	"crypto/rand"
	"fmt"
	"html/template"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/auth/mail"
)

// otpSpec says where one kind of one-time code lives and how it is mailed.
type otpSpec struct {
	kind      string // template name: confirmation, invite, recovery, magic_link, email_change, reauthentication
	linkType  string // type= of the verify link
	column    string // users column holding the hash
	sentAt    string // users column stamped when sent
	tokenType string // auth.one_time_tokens.token_type
	subject   string
	body      string
}

// The kinds of mailed codes. The default subjects and bodies are our own
// short texts; operators replace them with MailSubjects/MailTemplates,
// which take the reference's template variables, so templates written for
// Supabase work unchanged.
var (
	specConfirmation = otpSpec{"confirmation", "signup", "confirmation_token", "confirmation_sent_at", "confirmation_token",
		"Confirm your email address", `<h2>Confirm your email address</h2>
<p>Open this link to confirm the address {{ .Email }}:</p>
<p><a href="{{ .ConfirmationURL }}">Confirm my email</a></p>
<p>Or enter this code: {{ .Token }}</p>`}
	specInvite = otpSpec{"invite", "invite", "confirmation_token", "confirmation_sent_at", "confirmation_token",
		"You've been invited", `<h2>You have been invited</h2>
<p>You were invited to create an account at {{ .SiteURL }}. Open this link to accept:</p>
<p><a href="{{ .ConfirmationURL }}">Accept the invitation</a></p>
<p>Or enter this code: {{ .Token }}</p>`}
	specRecovery = otpSpec{"recovery", "recovery", "recovery_token", "recovery_sent_at", "recovery_token",
		"Reset your password", `<h2>Reset your password</h2>
<p>Open this link to choose a new password:</p>
<p><a href="{{ .ConfirmationURL }}">Reset my password</a></p>
<p>Or enter this code: {{ .Token }}</p>`}
	specMagicLink = otpSpec{"magic_link", "magiclink", "recovery_token", "recovery_sent_at", "recovery_token",
		"Your sign-in link", `<h2>Your sign-in link</h2>
<p>Open this link to sign in:</p>
<p><a href="{{ .ConfirmationURL }}">Sign in</a></p>
<p>Or enter this code: {{ .Token }}</p>`}
	specEmailChangeNew = otpSpec{"email_change", "email_change", "email_change_token_new", "email_change_sent_at", "email_change_token_new",
		"Confirm your new email address", `<h2>Confirm your new email address</h2>
<p>Open this link to change your address from {{ .Email }} to {{ .NewEmail }}:</p>
<p><a href="{{ .ConfirmationURL }}">Change my email</a></p>
<p>Or enter this code: {{ .Token }}</p>`}
	// The current address gets the same text: it confirms the same change.
	specEmailChangeCurrent = otpSpec{"email_change", "email_change", "email_change_token_current", "email_change_sent_at", "email_change_token_current",
		"Confirm your new email address", specEmailChangeNew.body}
	// Reauthentication has no link (linkType ""): the nonce is typed into
	// the app, which sends it with the password change.
	specReauth = otpSpec{"reauthentication", "", "reauthentication_token", "reauthentication_sent_at", "reauthentication_token",
		"{{ .Token }} is your verification code", `<h2>Confirm it is you</h2>
<p>Enter this code: {{ .Token }}</p>`}
)

// mailKinds are the mail kinds whose subject and body can be configured.
var mailKinds = map[string]bool{"confirmation": true, "invite": true, "recovery": true, "magic_link": true,
	"email_change": true, "reauthentication": true}

// sentAtOf returns the user's timestamp for spec's sent column.
func (u *user) sentAtOf(spec otpSpec) *time.Time {
	switch spec.sentAt {
	case "confirmation_sent_at":
		return u.ConfirmationSentAt
	case "recovery_sent_at":
		return u.RecoverySentAt
	case "email_change_sent_at":
		return u.EmailChangeSentAt
	case "reauthentication_sent_at":
		return u.ReauthSentAt
	case "phone_change_sent_at":
		return u.PhoneChangeSentAt
	}
	return nil
}

// randomDigits returns n random decimal digits from crypto/rand, each
// uniform (rand.Int rejects rather than reducing modulo), because a
// guessable code is a guessable sign-in.
func randomDigits(n int) string {
	var b strings.Builder
	for range n {
		d, _ := rand.Int(rand.Reader, big.NewInt(10))
		b.WriteByte(byte('0' + d.Int64()))
	}
	return b.String()
}

// throttle enforces the per-user gap between two messages of one kind: the
// guard against using our mail server to flood someone's inbox, on top of
// the per-IP limits. It answers 429 with the reference's message, which
// auth-js shows as is.
//
// The check claims the send in the database: a conditional UPDATE stamps
// the kind's sent-at column only if the last message is at least every
// old. Racing requests for one user queue on the row lock and, once the
// first commits, find its stamp, so exactly one of them sends, however many
// Basalt processes serve them. The stamp belongs to the caller's
// transaction: a send that fails takes it back.
func (s *Service) throttle(ctx context.Context, tx pgx.Tx, u *user, sentAt string, every time.Duration, code string) error {
	if every <= 0 {
		return nil
	}
	now := s.now()
	tag, err := tx.Exec(ctx, fmt.Sprintf(`UPDATE auth.users SET %[1]s = $2 WHERE id = $1 AND (%[1]s IS NULL OR %[1]s <= $3)`, sentAt),
		u.ID, now, now.Add(-every))
	if err != nil {
		return fmt.Errorf("claim %s of %s: %w", sentAt, u.ID, err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	// Refused: read the stamp that won, committed by now, for the wait.
	var last time.Time
	if err := tx.QueryRow(ctx, fmt.Sprintf(`SELECT %s FROM auth.users WHERE id = $1`, sentAt), u.ID).Scan(&last); err != nil {
		return fmt.Errorf("read %s of %s: %w", sentAt, u.ID, err)
	}
	// Whole seconds, rounded down, as the reference reports them.
	left := max(every-now.Sub(last), 0)
	return tooMany(code, "For security purposes, you can only request this after %d seconds.", int(left/time.Second))
}

// otpDelivery is what one sent code ended up as: the code and its stored
// hash, the link built from it, and the sender's message id.
type otpDelivery struct {
	OTP, Hash, Link, RedirectTo string
	MessageID                   string
}

// deliverEmailOTP creates a fresh code of spec for u, stores its hash (with
// a pkce_ prefix for PKCE flows), and mails it to `to` unless send is false
// (admin generate_link). Callers check throttling first.
func (s *Service) deliverEmailOTP(ctx context.Context, tx pgx.Tx, u *user, spec otpSpec, to, redirectTo string, pkce, send bool) (*otpDelivery, error) {
	// The project-wide hourly mail budget (the reference's
	// RATE_LIMIT_EMAIL_SENT) protects the SMTP account's reputation; links
	// an admin generates without sending do not count.
	if send {
		if err := s.limit(ctx, "email_sent", s.cfg.RateLimits.EmailSent, time.Hour, "over_email_send_rate_limit", "email rate limit exceeded"); err != nil {
			return nil, err
		}
	}
	now := s.now()
	// One code serves both ways in: typed (the OTP) and clicked (its hash
	// in the link). Only the hash is stored.
	otp := randomDigits(s.cfg.OTPLength)
	hash := otpHash(strings.ToLower(to), otp)
	stored := hash
	if pkce {
		stored = "pkce_" + hash
	}
	// The users column is what the reference's SQL (and dashboards) read;
	// one_time_tokens mirrors it for newer tooling.
	if _, err := tx.Exec(ctx, fmt.Sprintf(`UPDATE auth.users SET %s = $2, %s = $3 WHERE id = $1`, spec.column, spec.sentAt),
		u.ID, stored, now); err != nil {
		return nil, fmt.Errorf("store %s of %s: %w", spec.column, u.ID, err)
	}
	if err := upsertOneTimeToken(ctx, tx, u.ID, spec.tokenType, stored, to, now); err != nil {
		return nil, err
	}
	d := &otpDelivery{OTP: otp, Hash: stored, RedirectTo: redirectTo}
	if spec.linkType != "" {
		d.Link = s.verifyLink(stored, spec.linkType, redirectTo)
	}
	if !send {
		return d, nil
	}
	vars := map[string]any{"ConfirmationURL": d.Link, "Token": otp, "TokenHash": stored, "SiteURL": s.cfg.SiteURL,
		"Email": u.Email, "NewEmail": u.EmailChange, "Data": u.UserMetadata, "RedirectTo": redirectTo}
	subjectT, bodyT := spec.subject, spec.body
	if v, ok := s.cfg.MailSubjects[spec.kind]; ok {
		subjectT = v
	}
	if v, ok := s.cfg.MailTemplates[spec.kind]; ok {
		bodyT = v
	}
	subject, err := renderText(subjectT, vars)
	if err != nil {
		return nil, err
	}
	body, err := render(bodyT, vars)
	if err != nil {
		return nil, err
	}
	msg := &mail.Message{ID: mail.NewID(), To: to, Subject: subject, Body: body, Channel: "email", Type: spec.kind,
		Link: d.Link, Token: otp, TokenHash: stored, RedirectTo: redirectTo, SentAt: now.UTC()}
	// A failed send fails the request, and with it the transaction that
	// stored the code: no code exists that nobody received.
	if err := s.mailer.Send(ctx, msg); err != nil {
		return nil, &apiError{Status: 500, Code: "unexpected_failure", Message: "Error sending " + spec.kind + " email", Cause: err}
	}
	d.MessageID = msg.ID
	return d, nil
}

// verifyLink is the link in a mail: <api>/auth/v1/verify?token=…&type=…&redirect_to=…
// (token and type first, like the reference's links).
func (s *Service) verifyLink(token, typ, redirectTo string) string {
	link := strings.TrimSuffix(s.cfg.APIURL, "/") + "/auth/v1/verify?token=" + url.QueryEscape(token) +
		"&type=" + url.QueryEscape(typ)
	if redirectTo != "" {
		link += "&redirect_to=" + url.QueryEscape(redirectTo)
	}
	return link
}

// renderText renders a subject line: plain text, nothing HTML-escaped.
func renderText(tmpl string, vars map[string]any) (string, error) {
	t, err := texttemplate.New("subject").Parse(tmpl)
	if err != nil {
		return "", fmt.Errorf("parse mail subject: %w", err)
	}
	var b strings.Builder
	if err := t.Execute(&b, vars); err != nil {
		return "", fmt.Errorf("render mail subject: %w", err)
	}
	return b.String(), nil
}

// render renders an HTML body; values are escaped for HTML, because some
// of them (user_metadata, the new address) come from the user and would
// otherwise let anyone inject markup into mail sent from the project.
func render(tmpl string, vars map[string]any) (string, error) {
	t, err := template.New("mail").Parse(tmpl)
	if err != nil {
		return "", fmt.Errorf("parse mail template: %w", err)
	}
	var b strings.Builder
	if err := t.Execute(&b, vars); err != nil {
		return "", fmt.Errorf("render mail template: %w", err)
	}
	return b.String(), nil
}

// deliverSMS creates a fresh SMS code in column (confirmation_token,
// phone_change_token or reauthentication_token) and texts it to phone.
func (s *Service) deliverSMS(ctx context.Context, tx pgx.Tx, u *user, column, sentAt, tokenType, phone string) (string, error) {
	if err := s.limit(ctx, "sms_sent", s.cfg.RateLimits.SMSSent, time.Hour, "over_sms_send_rate_limit", "SMS rate limit exceeded"); err != nil {
		return "", err
	}
	now := s.now()
	otp := randomDigits(s.cfg.SMSOTPLength)
	// Fixed test codes let automated tests sign in by phone.
	code, testOTP := s.cfg.SMSTestOTP[phone]
	if testOTP {
		otp = code
	}
	if s.sms == nil && !testOTP {
		return "", &apiError{Status: http.StatusInternalServerError, Code: "unexpected_failure", Message: "Unable to get SMS provider"}
	}
	hash := otpHash(phone, otp)
	if _, err := tx.Exec(ctx, fmt.Sprintf(`UPDATE auth.users SET %s = $2, %s = $3 WHERE id = $1`, column, sentAt),
		u.ID, hash, now); err != nil {
		return "", fmt.Errorf("store %s of %s: %w", column, u.ID, err)
	}
	if err := upsertOneTimeToken(ctx, tx, u.ID, tokenType, hash, phone, now); err != nil {
		return "", err
	}
	body := "Your code is " + otp
	id := "test-otp" // what the reference reports for a test code it does not send
	if s.sms != nil {
		var err error
		if id, err = s.sms.SendSMS(ctx, phone, body); err != nil {
			return "", unprocessable("sms_send_failed", "Error sending sms OTP: %v", err)
		}
	}
	// The dev mailbox keeps SMS too, so phone flows can be tried and tested
	// the same way as email ones.
	if s.mailbox != nil {
		_ = s.mailbox.Send(ctx, &mail.Message{ID: mail.NewID(), To: phone, Body: body, Channel: "sms", Type: "sms",
			Token: otp, TokenHash: hash, SentAt: now.UTC()})
	}
	return id, nil
}
