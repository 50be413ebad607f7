// Package auth is Basalt's GoTrue-compatible authentication service, mounted
// by the gateway at /auth/v1. It signs users up and in (password, email and
// phone OTP, magic links, anonymous), issues access JWTs and rotating refresh
// tokens backed by the auth schema, and offers the admin API, PKCE and TOTP
// MFA, so @supabase/supabase-js talks to it unchanged.
//
// Errors, JSON shapes and status codes follow the reference server
// (supabase/auth); the wire contract lives in the project's contracts.
package auth

import (
	"context"
	"crypto/x509"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/auth/mail"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/ratelimit"
)

// Service implements the GoTrue-compatible auth API.
type Service struct {
	cfg     Config
	db      *pgxpool.Pool
	keys    *jwt.Keys
	mux     *http.ServeMux
	now     func() time.Time
	log     *slog.Logger
	mailer  mail.Sender
	mailbox *mail.Mailbox // nil unless the dev mailbox is on
	sms     SMSSender
	limits  *ratelimit.Store
	// httpClient talks to external providers; oidc caches their
	// discovery documents and keys.
	httpClient *http.Client
	oidc       *oidcCache
	// samlCert is the SAML service provider's certificate (SSO on only).
	samlCert *x509.Certificate
	// passkeyRP and mfaRP run WebAuthn ceremonies for passkeys and for
	// MFA factors (nil while both features are off).
	passkeyRP, mfaRP *webauthn.WebAuthn
	// localProviders lets the admin API's custom providers live on this
	// machine or its network (checkProviderURL refuses them). Only tests
	// set it: their providers listen on loopback, and the reference's
	// tests step around its own check the same way.
	localProviders bool
	// hashes runs every bcrypt hash and comparison (hashing.go).
	hashes *hashPool
	// dummy is the hash unknown accounts' passwords are compared with.
	dummy     []byte
	dummyOnce sync.Once
}

var _ http.Handler = (*Service)(nil)

// Option changes how New builds the service.
type Option func(*Service)

// WithClock replaces time.Now (tests move time forward with it).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithMailer replaces the configured mail delivery (SMTP / log). The dev
// mailbox, when enabled, still keeps a copy.
func WithMailer(m mail.Sender) Option { return func(s *Service) { s.mailer = m } }

// WithSMSSender sets how SMS codes are delivered. Without one, codes are
// logged (and kept) by the dev mailbox when it is on; otherwise there is no
// SMS provider and only SMS_TEST_OTP numbers get codes.
func WithSMSSender(m SMSSender) Option { return func(s *Service) { s.sms = m } }

// WithHTTPClient sets the client used to reach external OAuth/OIDC
// providers (default: a client with a 10 s timeout).
func WithHTTPClient(c *http.Client) Option { return func(s *Service) { s.httpClient = c } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// SMSSender delivers a text message and returns the provider's message id.
type SMSSender interface {
	SendSMS(ctx context.Context, phone, body string) (messageID string, err error)
}

// LogSMS is the development SMS sender: it logs the message, code included.
type LogSMS struct {
	// Logger receives the number and the text.
	Logger *slog.Logger
}

// SendSMS implements SMSSender.
func (l LogSMS) SendSMS(ctx context.Context, phone, body string) (string, error) {
	l.Logger.InfoContext(ctx, "sms", "to", "+"+phone, "body", body)
	return "", nil
}

// New builds the service. db must be the admin pool (owner of the auth
// schema); keys sign access tokens.
func New(cfg Config, db *pgxpool.Pool, keys *jwt.Keys, opts ...Option) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if db == nil || keys == nil {
		return nil, errors.New("auth: database pool and keys are required")
	}
	s := &Service{cfg: cfg, db: db, keys: keys, mux: http.NewServeMux(), now: time.Now, log: slog.Default()}
	for _, o := range opts {
		o(s)
	}
	if s.mailer == nil {
		if cfg.SMTP.Host != "" {
			from := cfg.SMTP.AdminEmail
			if from == "" {
				from = "noreply@localhost"
			}
			s.mailer = &mail.SMTP{Host: cfg.SMTP.Host, Port: cfg.SMTP.Port, User: cfg.SMTP.User,
				Pass: cfg.SMTP.Pass, From: from, SenderName: cfg.SMTP.SenderName}
		} else if !cfg.DevMailbox {
			s.mailer = mail.Log{Logger: s.log}
		}
	}
	if cfg.DevMailbox {
		s.mailbox = &mail.Mailbox{Logger: s.log}
		if s.mailer == nil {
			s.mailer = s.mailbox
		} else {
			s.mailer = mail.Multi{s.mailbox, s.mailer}
		}
	}
	// Without a configured sender there is no SMS provider, and only the
	// fixed test codes can be "sent", as in the reference; the dev mailbox
	// stands in for a provider (codes are kept and logged).
	if s.sms == nil && s.mailbox != nil {
		s.sms = LogSMS{Logger: s.log}
	}
	s.limits = ratelimit.New(db, s.now)
	s.hashes = newHashPool(cfg.PasswordHashWorkers, cfg.PasswordHashMaxWait)
	if s.httpClient == nil {
		// The reference's default for calls to providers.
		s.httpClient = &http.Client{Timeout: 10 * time.Second}
	}
	s.oidc = &oidcCache{ttl: cfg.OIDCCacheTTL, client: s.httpClient}
	if err := s.initSAML(); err != nil {
		return nil, err
	}
	if err := s.initWebAuthn(); err != nil {
		return nil, err
	}
	s.routes()
	return s, nil
}

// Mailbox returns the dev mailbox, or nil when it is off.
func (s *Service) Mailbox() *mail.Mailbox { return s.mailbox }

// maxBody is the request body limit, as in the reference server.
const maxBody = 1 << 20

// maxRequestDuration bounds one request (the reference's
// API_MAX_REQUEST_DURATION); past it the answer is 504 request_timeout.
const maxRequestDuration = 10 * time.Second

// ServeHTTP implements http.Handler.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

// handlerFunc is an endpoint: it writes its success response and returns
// any error for s.handle to render.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts a handlerFunc, rendering errors in GoTrue's format and
// turning panics into 500 unexpected_failure.
func (s *Service) handle(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.ErrorContext(r.Context(), "auth handler panic", "panic", v, "path", r.URL.Path)
				s.writeError(w, r, internalErr(errors.New("panic")))
			}
		}()
		r.Body = http.MaxBytesReader(w, r.Body, maxBody+1)
		ctx, cancel := context.WithTimeout(r.Context(), maxRequestDuration)
		defer cancel()
		if err := h(w, r.WithContext(ctx)); err != nil {
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
				err = newErr(http.StatusGatewayTimeout, "request_timeout", "Processing this request timed out, please retry after a moment.")
			}
			s.writeError(w, r, err)
		}
	})
}
