package mail

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// received is one message the in-process SMTP server (go-smtp) accepted.
type received struct {
	From, To, Data, User string
}

type backend struct {
	mu   sync.Mutex
	msgs []received
	user string
	pass string
}

func (b *backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{b: b}, nil }

type session struct {
	b    *backend
	cur  received
	auth bool
}

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.b.user || pass != s.b.pass {
			return errors.New("invalid credentials")
		}
		s.auth, s.cur.User = true, user
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if s.b.user != "" && !s.auth {
		return smtp.ErrAuthRequired
	}
	s.cur.From = from
	return nil
}
func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error { s.cur.To = to; return nil }
func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.Data = string(b)
	s.b.mu.Lock()
	s.b.msgs = append(s.b.msgs, s.cur)
	s.b.mu.Unlock()
	return nil
}
func (s *session) Reset()        {}
func (s *session) Logout() error { return nil }

func startServer(t *testing.T, user, pass string) (*backend, int) {
	t.Helper()
	be := &backend{user: user, pass: pass}
	srv := smtp.NewServer(be)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return be, l.Addr().(*net.TCPAddr).Port
}

func TestSMTPDelivers(t *testing.T) {
	t.Parallel()
	be, port := startServer(t, "mailer", "pw")
	s := &SMTP{Host: "127.0.0.1", Port: port, User: "mailer", Pass: "pw", From: "noreply@basalt.test", SenderName: "Basalt Auth"}
	m := &Message{ID: NewID(), To: "ann@example.com", Subject: "Confirm your email address", Channel: "email",
		Body: "<p><a href=\"http://x/verify?token=abc&type=signup\">Confirm</a></p>\n<p>Code: 123456</p>", SentAt: time.Now()}
	if err := s.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if len(be.msgs) != 1 {
		t.Fatalf("received %d messages", len(be.msgs))
	}
	got := be.msgs[0]
	if got.From != "noreply@basalt.test" || got.To != "ann@example.com" || got.User != "mailer" {
		t.Fatalf("envelope %+v", got)
	}
	for _, want := range []string{"Subject: Confirm your email address\r\n", "From: Basalt Auth <noreply@basalt.test>\r\n",
		"Content-Type: text/html; charset=\"utf-8\"\r\n", "token=abc&type=signup", "Code: 123456"} {
		if !strings.Contains(got.Data, want) {
			t.Errorf("message lacks %q:\n%s", want, got.Data)
		}
	}
}

func TestSMTPAuthFailure(t *testing.T) {
	t.Parallel()
	_, port := startServer(t, "mailer", "pw")
	s := &SMTP{Host: "127.0.0.1", Port: port, User: "mailer", Pass: "wrong", From: "a@b.co"}
	if err := s.Send(context.Background(), &Message{To: "x@y.co", Channel: "email"}); err == nil || !strings.Contains(err.Error(), "smtp auth") {
		t.Fatalf("err = %v", err)
	}
	// Unreachable server.
	s = &SMTP{Host: "127.0.0.1", Port: 1, From: "a@b.co", Timeout: time.Second}
	if err := s.Send(context.Background(), &Message{To: "x@y.co", Channel: "email"}); err == nil {
		t.Fatal("want dial error")
	}
}

func TestMailboxKeepsNewestFirst(t *testing.T) {
	t.Parallel()
	b := &Mailbox{Max: 2}
	for _, to := range []string{"a@x.co", "B@x.co", "a@x.co"} {
		_ = b.Send(context.Background(), &Message{To: to, Subject: to})
	}
	if all := b.List(""); len(all) != 2 || all[0].To != "a@x.co" || all[1].To != "B@x.co" {
		t.Fatalf("list %+v", all)
	}
	if got := b.List("b@x.co"); len(got) != 1 {
		t.Fatalf("filter %+v", got)
	}
}
