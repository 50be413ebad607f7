// Package backline holds Backline's edge functions, served by the functions
// service at /functions/v1/{name}:
//
//	transfer-payment      pay the artist for a sponsored stream (as the caller)
//	create-payment        start a wallet top-up or the verification purchase
//	flutterwave-verify    verify a Flutterwave payment on the browser's return
//	paystack-verify       verify a Paystack payment on the browser's return
//	flutterwave-webhook   credit payments whose browser never came back
//	paystack-webhook      the same for Paystack
//	client-ip             the caller's IP as the gateway saw it
//	track-duration        measure an uploaded track's audio and record its length
//	sandbox               the local provider sandbox (only when enabled)
//
// The functions hold no business rule of their own: money moves only inside
// the SQL functions of sql/app (settle_sponsored_stream, create_payment,
// complete_payment), which lock, check and write the ledger. What the Go side
// adds is what SQL cannot do: talking to the card providers over HTTP and
// checking their webhook signatures.
package backline

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/backline/provider"
	"github.com/basaltdev/basalt/functions/backline/sandbox"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/pg"
)

// ProviderConfig is one card provider's account.
type ProviderConfig struct {
	// BaseURL is the API root (production: https://api.flutterwave.com,
	// https://api.paystack.co).
	BaseURL string
	// SecretKey authenticates API calls; Paystack also signs webhooks with it.
	SecretKey string
	// SecretHash is Flutterwave's webhook `verif-hash` value.
	SecretHash string
}

// Config holds Backline's function settings.
type Config struct {
	// SiteURL is the app's address; checkouts send the browser back to
	// SiteURL + ReturnPath.
	SiteURL    string
	ReturnPath string
	// Flutterwave and Paystack are the provider accounts. A provider without
	// a secret key is off: starting or verifying its payments fails closed.
	Flutterwave, Paystack ProviderConfig
	// WantSandbox asks for the local provider sandbox even with provider
	// keys configured (BACKLINE_PAYMENT_SANDBOX=true); `basalt dev` uses it
	// anyway when no provider has a secret key.
	WantSandbox bool
	// Sandbox, when set, serves the local provider sandbox as the function
	// "sandbox", and points both providers at it (see UseSandbox).
	Sandbox *sandbox.Config
	// APIURL is the Basalt API as this server reaches it; track-duration
	// reads uploaded audio from its public storage URLs.
	APIURL string
	// HTTP calls the providers; nil means a client with a 20 s timeout.
	HTTP *http.Client
	// Log receives operational messages; nil discards them.
	Log *slog.Logger
}

// Production API roots of the providers.
const (
	FlutterwaveAPI = "https://api.flutterwave.com"
	PaystackAPI    = "https://api.paystack.co"
)

// ConfigFromEnv reads:
//
//	SITE_URL                      the app's URL (default http://localhost:3000)
//	BACKLINE_PAYMENT_RETURN_PATH  where checkouts return (default /dashboard)
//	FLUTTERWAVE_SECRET_KEY        Flutterwave v3 secret key (FLWSECK-…)
//	FLUTTERWAVE_SECRET_HASH       Flutterwave webhook secret hash (verif-hash)
//	FLUTTERWAVE_BASE_URL          default https://api.flutterwave.com
//	PAYSTACK_SECRET_KEY           Paystack secret key (sk_…), also signs webhooks
//	PAYSTACK_BASE_URL             default https://api.paystack.co
//	BACKLINE_PAYMENT_SANDBOX      true: use the local sandbox instead of the providers
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	r := config.NewReader(getenv)
	cfg := Config{
		SiteURL:    r.String("SITE_URL", "http://localhost:3000"),
		ReturnPath: r.String("BACKLINE_PAYMENT_RETURN_PATH", "/dashboard"),
		Flutterwave: ProviderConfig{BaseURL: r.String("FLUTTERWAVE_BASE_URL", FlutterwaveAPI),
			SecretKey: r.String("FLUTTERWAVE_SECRET_KEY", ""), SecretHash: r.String("FLUTTERWAVE_SECRET_HASH", "")},
		Paystack:    ProviderConfig{BaseURL: r.String("PAYSTACK_BASE_URL", PaystackAPI), SecretKey: r.String("PAYSTACK_SECRET_KEY", "")},
		WantSandbox: r.Bool("BACKLINE_PAYMENT_SANDBOX", false),
	}
	for _, bad := range cfg.problems() {
		r.Fail("%s", bad)
	}
	return cfg, r.Err()
}

// ProvidersConfigured reports whether any real provider has a secret key.
func (c *Config) ProvidersConfigured() bool {
	return c.Flutterwave.SecretKey != "" || c.Paystack.SecretKey != ""
}

// problems lists what is wrong with the settings, one line each.
func (c *Config) problems() []string {
	var bad []string
	for name, v := range map[string]string{"SITE_URL": c.SiteURL, "FLUTTERWAVE_BASE_URL": c.Flutterwave.BaseURL,
		"PAYSTACK_BASE_URL": c.Paystack.BaseURL} {
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad = append(bad, fmt.Sprintf("%s: %q is not an http(s) URL", name, v))
		}
	}
	if !strings.HasPrefix(c.ReturnPath, "/") {
		bad = append(bad, fmt.Sprintf("BACKLINE_PAYMENT_RETURN_PATH: %q must start with /", c.ReturnPath))
	}
	return bad
}

// UseSandbox switches both providers to the local sandbox for `basalt dev`:
// functionsURL is the public /functions/v1 address, so the hosted checkout
// page is <functionsURL>/sandbox/checkout/{id} and the sandbox's webhooks
// reach this service's webhook functions. Keys are fixed dev values; the
// sandbox moves no real money.
func (c *Config) UseSandbox(functionsURL string) {
	functionsURL = strings.TrimRight(functionsURL, "/")
	c.Flutterwave = ProviderConfig{BaseURL: functionsURL + "/sandbox/flutterwave",
		SecretKey: "FLWSECK_TEST-sandbox-X", SecretHash: "sandbox-verif-hash"}
	c.Paystack = ProviderConfig{BaseURL: functionsURL + "/sandbox/paystack", SecretKey: "sk_test_sandbox"}
	c.Sandbox = &sandbox.Config{
		BaseURL:               functionsURL + "/sandbox",
		FlutterwaveSecretKey:  c.Flutterwave.SecretKey,
		FlutterwaveSecretHash: c.Flutterwave.SecretHash,
		PaystackSecretKey:     c.Paystack.SecretKey,
		FlutterwaveWebhookURL: functionsURL + "/flutterwave-webhook",
		PaystackWebhookURL:    functionsURL + "/paystack-webhook",
	}
}

// Backline is the set of Backline's functions with what they share.
type Backline struct {
	cfg     Config
	db      pg.DB // the user pool (role authenticator): every query runs as a role via pg.AsCaller
	flw     *provider.FlutterwaveClient
	ps      *provider.PaystackClient
	sandbox *sandbox.Sandbox
	media   *http.Client // reads stored audio (track-duration)
	log     *slog.Logger
	now     func() time.Time
}

// New builds the functions over the user pool (role authenticator). Queries
// run as the caller, or as service_role where a function acts for the
// platform (payment completion), always through pg.AsCaller.
func New(cfg Config, userPool pg.DB) (*Backline, error) {
	if cfg.ReturnPath == "" {
		cfg.ReturnPath = "/dashboard"
	}
	if bad := cfg.problems(); len(bad) > 0 {
		return nil, fmt.Errorf("backline config: %s", strings.Join(bad, "; "))
	}
	if userPool == nil {
		return nil, fmt.Errorf("backline: no database pool")
	}
	b := &Backline{cfg: cfg, db: userPool, log: cfg.Log, now: time.Now, media: &http.Client{Timeout: 60 * time.Second}}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	hc := cfg.HTTP
	if cfg.Sandbox != nil {
		sc := *cfg.Sandbox
		sc.Log = b.log
		b.sandbox = sandbox.New(sc)
		// The functions reach the sandbox in process, so `basalt dev` needs
		// no loopback hop through the gateway for the verify calls.
		if hc == nil {
			hc = &http.Client{Timeout: 20 * time.Second, Transport: inProcess{prefix: sc.BaseURL, h: b.sandbox}}
		}
	}
	b.flw = provider.NewFlutterwave(cfg.Flutterwave.BaseURL, cfg.Flutterwave.SecretKey, hc)
	b.ps = provider.NewPaystack(cfg.Paystack.BaseURL, cfg.Paystack.SecretKey, hc)
	return b, nil
}

// Functions returns the registry to pass to functions.New.
func (b *Backline) Functions() []functions.Function {
	fns := []functions.Function{
		{Name: "transfer-payment", VerifyJWT: true, Handler: b.transferPayment},
		{Name: "create-payment", VerifyJWT: true, Handler: b.createPayment},
		{Name: "flutterwave-verify", VerifyJWT: true, Handler: b.flutterwaveVerify},
		{Name: "paystack-verify", VerifyJWT: true, Handler: b.paystackVerify},
		// Providers call webhooks without a project JWT; the signature is
		// the authentication.
		{Name: "flutterwave-webhook", VerifyJWT: false, Handler: b.flutterwaveWebhook},
		{Name: "paystack-webhook", VerifyJWT: false, Handler: b.paystackWebhook},
		{Name: "client-ip", VerifyJWT: true, Handler: b.clientIP},
		{Name: "track-duration", VerifyJWT: true, Handler: b.trackDuration},
	}
	if b.sandbox != nil {
		// The hosted checkout page is opened by a plain browser navigation,
		// which carries no JWT.
		fns = append(fns, functions.Function{Name: "sandbox", VerifyJWT: false,
			Handler: func(w http.ResponseWriter, r *http.Request) error { b.sandbox.ServeHTTP(w, r); return nil }})
	}
	return fns
}

// inProcess is an http.RoundTripper that serves requests under prefix with
// h directly, and everything else over the network.
type inProcess struct {
	prefix string
	h      http.Handler
}

// RoundTrip serves sandbox URLs in process and passes the rest on.
func (t inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.HasPrefix(r.URL.String(), t.prefix+"/") {
		return http.DefaultTransport.RoundTrip(r)
	}
	base, err := url.Parse(t.prefix)
	if err != nil {
		return nil, err
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path = strings.TrimPrefix(r.URL.Path, base.Path)
	r2.URL.RawPath = ""
	r2.RequestURI = r2.URL.RequestURI()
	rec := newRecorder()
	t.h.ServeHTTP(rec, r2)
	return rec.result(r), nil
}
