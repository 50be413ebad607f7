package auth

import (
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-smtp"
)

// inbox is an in-process SMTP server (go-smtp) collecting message bodies.
type inbox struct {
	mu   sync.Mutex
	data []string
}

func (b *inbox) NewSession(*smtp.Conn) (smtp.Session, error) { return &inboxSession{b: b}, nil }

type inboxSession struct{ b *inbox }

func (s *inboxSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *inboxSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *inboxSession) Reset()                               {}
func (s *inboxSession) Logout() error                        { return nil }
func (s *inboxSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	s.b.mu.Lock()
	s.b.data = append(s.b.data, string(b))
	s.b.mu.Unlock()
	return err
}

// The whole confirmation flow over a real SMTP conversation.
func TestSignupConfirmationOverSMTP(t *testing.T) {
	t.Parallel()
	box := &inbox{}
	srv := smtp.NewServer(box)
	srv.Domain = "localhost"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	e := newEnv(t, func(c *Config) {
		c.DevMailbox = false
		c.SMTP = SMTPConfig{Host: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port, AdminEmail: "auth@basalt.test", SenderName: "Basalt"}
	})
	if r := e.req("POST", "/signup", `{"email":"smtp@example.com","password":"secret123"}`, ""); r.Status != 200 {
		t.Fatalf("signup %d %s", r.Status, r.Body)
	}
	box.mu.Lock()
	defer box.mu.Unlock()
	if len(box.data) != 1 || !strings.Contains(box.data[0], "To: smtp@example.com") || !strings.Contains(box.data[0], "Subject: Confirm your email address") {
		t.Fatalf("received %q", box.data)
	}
	link := regexp.MustCompile(`href="([^"]+)"`).FindStringSubmatch(box.data[0])
	if link == nil {
		t.Fatalf("no link in %s", box.data[0])
	}
	href := strings.ReplaceAll(link[1], "&amp;", "&")
	w := e.get(strings.TrimPrefix(href, "http://api.test/auth/v1"))
	if w.Code != 303 || !strings.Contains(w.Header().Get("Location"), "#access_token=") {
		t.Fatalf("verify from mailed link %d %s", w.Code, w.Header().Get("Location"))
	}
}
