// Package mail delivers the auth service's messages: through an SMTP server
// when one is configured, and into an in-memory dev mailbox that logs every
// message with its links, so sign-up, magic-link and OTP flows can be tried
// without a mail server.
package mail

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/smtp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Message is one outgoing email or SMS. The structured fields (Type, Link,
// Token, TokenHash) are what the dev mailbox exposes; SMTP sends Subject and
// Body.
type Message struct {
	// ID is random, unique per message.
	ID string `json:"id"`
	// To is the email address, or the phone number (digits) for SMS.
	To string `json:"to"`
	// Subject is empty for SMS.
	Subject string `json:"subject,omitempty"`
	// Body is the rendered HTML mail or the SMS text.
	Body    string `json:"body"`
	Channel string `json:"channel"` // "email" or "sms"
	Type    string `json:"type"`    // confirmation, magic_link, recovery, invite, email_change, reauthentication, sms, phone_change
	// Link is the confirmation URL the mail carries (to /verify); named
	// after the template variable the reference's mails use.
	Link string `json:"confirmation_url,omitempty"`
	// Token is the OTP code, TokenHash the hash a link carries instead.
	Token     string `json:"token,omitempty"`
	TokenHash string `json:"token_hash,omitempty"`
	// RedirectTo is where the link sends the browser after verification.
	RedirectTo string `json:"redirect_to,omitempty"`
	// SentAt is when the message was handed to its sender.
	SentAt time.Time `json:"sent_at"`
}

// Sender delivers a message.
type Sender interface {
	Send(ctx context.Context, m *Message) error
}

// NewID returns a random message id.
func NewID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Multi sends to every sender in turn and stops at the first error.
type Multi []Sender

// Send implements Sender.
func (m Multi) Send(ctx context.Context, msg *Message) error {
	for _, s := range m {
		if err := s.Send(ctx, msg); err != nil {
			return err
		}
	}
	return nil
}

// Log is a Sender that only logs, used when neither SMTP nor the dev
// mailbox is configured (the reference server does the same).
type Log struct {
	// Logger receives one line per message, without its link or code.
	Logger *slog.Logger
}

// Send implements Sender.
func (l Log) Send(ctx context.Context, m *Message) error {
	l.Logger.InfoContext(ctx, "auth message not delivered (no SMTP configured)", "to", m.To, "type", m.Type)
	return nil
}

// Mailbox is the dev mailbox: it keeps the newest messages in memory and logs
// each one with its link and code.
type Mailbox struct {
	// Logger, when set, receives every message with its link and code, so
	// flows can be followed from the server log alone.
	Logger *slog.Logger
	// Max is how many messages are kept (oldest dropped first); 0 means 1000.
	Max int

	mu   sync.Mutex
	msgs []Message
}

// Send implements Sender.
func (b *Mailbox) Send(ctx context.Context, m *Message) error {
	b.mu.Lock()
	max := b.Max
	if max == 0 {
		max = 1000
	}
	b.msgs = append(b.msgs, *m)
	if len(b.msgs) > max {
		b.msgs = b.msgs[len(b.msgs)-max:]
	}
	b.mu.Unlock()
	if b.Logger != nil {
		b.Logger.InfoContext(ctx, "dev mailbox", "channel", m.Channel, "to", m.To, "type", m.Type,
			"subject", m.Subject, "link", m.Link, "code", m.Token)
	}
	return nil
}

// List returns the messages sent to `to` (all when empty), newest first.
func (b *Mailbox) List(to string) []Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := []Message{}
	for i := len(b.msgs) - 1; i >= 0; i-- {
		if to == "" || strings.EqualFold(b.msgs[i].To, to) {
			out = append(out, b.msgs[i])
		}
	}
	return out
}

// SMTP sends email through a mail server with STARTTLS when offered and
// PLAIN auth when a user is set.
type SMTP struct {
	// Host and Port locate the server.
	Host string
	Port int
	// User and Pass are the PLAIN credentials; empty User: no auth.
	User, Pass string
	// From is the sender address.
	From string
	// SenderName is the display name put before From.
	SenderName string
	// Timeout bounds one delivery; 0 means 10 s.
	Timeout time.Duration
	// ImplicitTLS speaks TLS from the first byte (always on port 465);
	// otherwise STARTTLS is used when the server offers it.
	ImplicitTLS bool
	// TLS overrides the TLS settings (default: system roots, TLS 1.2+).
	TLS *tls.Config
}

// tlsConfig is s.TLS when set (tests trust their own certificate that
// way), else the default client configuration for s.Host.
func (s *SMTP) tlsConfig() *tls.Config {
	if s.TLS != nil {
		return s.TLS
	}
	return tlsConfig(s.Host)
}

// Send implements Sender. SMS messages are ignored.
func (s *SMTP) Send(ctx context.Context, m *Message) error {
	if m.Channel == "sms" {
		return nil
	}
	timeout := s.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	addr := net.JoinHostPort(s.Host, strconv.Itoa(s.Port))
	d := net.Dialer{Timeout: timeout}
	var conn net.Conn
	var err error
	if s.ImplicitTLS || s.Port == 465 {
		conn, err = (&tls.Dialer{NetDialer: &d, Config: s.tlsConfig()}).DialContext(ctx, "tcp", addr)
	} else {
		conn, err = d.DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return fmt.Errorf("smtp dial %s: %w", addr, err)
	}
	// One deadline for the whole conversation: a server that accepts the
	// connection and then stalls must not hold the request (and its
	// database transaction) open.
	_ = conn.SetDeadline(time.Now().Add(timeout))
	c, err := smtp.NewClient(conn, s.Host)
	if err != nil {
		_ = conn.Close()
		return fmt.Errorf("smtp hello %s: %w", addr, err)
	}
	defer c.Close()
	if _, isTLS := conn.(*tls.Conn); !isTLS {
		if ok, _ := c.Extension("STARTTLS"); ok {
			if err := c.StartTLS(s.tlsConfig()); err != nil {
				return fmt.Errorf("smtp starttls: %w", err)
			}
		}
	}
	// net/smtp's PLAIN auth refuses to send credentials over an
	// unencrypted connection (except to localhost), so a server without
	// STARTTLS fails here instead of receiving the password in clear.
	if s.User != "" {
		if err := c.Auth(smtp.PlainAuth("", s.User, s.Pass, s.Host)); err != nil {
			return fmt.Errorf("smtp auth: %w", err)
		}
	}
	if err := c.Mail(s.From); err != nil {
		return fmt.Errorf("smtp MAIL FROM: %w", err)
	}
	if err := c.Rcpt(m.To); err != nil {
		return fmt.Errorf("smtp RCPT TO %s: %w", m.To, err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp DATA: %w", err)
	}
	if _, err := w.Write(s.render(m)); err != nil {
		return fmt.Errorf("smtp write: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp end of data: %w", err)
	}
	return c.Quit()
}

// render builds the RFC 5322 message: an HTML body, encoded headers.
func (s *SMTP) render(m *Message) []byte {
	from := s.From
	if s.SenderName != "" {
		from = mime.QEncoding.Encode("utf-8", s.SenderName) + " <" + s.From + ">"
	}
	var b strings.Builder
	hdr := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	hdr("From", from)
	hdr("To", m.To)
	// Headers are encoded words (RFC 2047), so a subject or sender name
	// cannot inject CR/LF and forge further headers.
	hdr("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	hdr("Date", m.SentAt.Format(time.RFC1123Z))
	hdr("Message-ID", "<"+m.ID+"@"+s.Host+">")
	hdr("MIME-Version", "1.0")
	hdr("Content-Type", `text/html; charset="utf-8"`)
	hdr("Content-Transfer-Encoding", "8bit")
	b.WriteString("\r\n")
	// Normalise line endings: SMTP needs CRLF.
	body := strings.ReplaceAll(strings.ReplaceAll(m.Body, "\r\n", "\n"), "\n", "\r\n")
	b.WriteString(body)
	return []byte(b.String())
}
