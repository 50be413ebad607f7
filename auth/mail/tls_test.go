package mail

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// selfSigned returns a server certificate for 127.0.0.1 and a pool trusting it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// Mail goes over STARTTLS when offered, and over implicit TLS when asked;
// credentials are only sent inside TLS.
func TestSMTPOverTLS(t *testing.T) {
	t.Parallel()
	cert, pool := selfSigned(t)
	for _, implicit := range []bool{false, true} {
		be := &backend{user: "mailer", pass: "pw"}
		srv := smtp.NewServer(be)
		srv.Domain = "localhost"
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if implicit {
			l = tls.NewListener(l, srv.TLSConfig)
		}
		go func() { _ = srv.Serve(l) }()
		s := &SMTP{Host: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port, User: "mailer", Pass: "pw", From: "a@b.co",
			ImplicitTLS: implicit, TLS: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}}
		if err := s.Send(context.Background(), &Message{To: "x@y.co", Subject: "s", Body: "b", Channel: "email"}); err != nil {
			t.Fatalf("implicit=%v: %v", implicit, err)
		}
		if len(be.msgs) != 1 || !strings.Contains(be.msgs[0].Data, "Subject: s") {
			t.Fatalf("implicit=%v: received %+v", implicit, be.msgs)
		}
		_ = srv.Close()
	}
	// An untrusted certificate is refused.
	be := &backend{}
	srv := smtp.NewServer(be)
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	s := &SMTP{Host: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port, From: "a@b.co"}
	if err := s.Send(context.Background(), &Message{To: "x@y.co", Channel: "email"}); err == nil || !strings.Contains(err.Error(), "starttls") {
		t.Fatalf("err = %v", err)
	}
}
