package main

import (
	"context"
	"fmt"
	"github.com/basaltdev/basalt/internal/accesslog"
	"log/slog"
	"net/http"
	"path/filepath"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/basaltdev/basalt/auth"
	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/replica"
	"github.com/basaltdev/basalt/pgmodules"
	"github.com/basaltdev/basalt/pgmodules/netsend"
	"github.com/basaltdev/basalt/realtime"
	"github.com/basaltdev/basalt/rest"
	"github.com/basaltdev/basalt/storage"
	"github.com/basaltdev/basalt/storage/fsbackend"
	"github.com/basaltdev/basalt/storage/s3backend"
	"github.com/basaltdev/basalt/studio"
)

// deps is everything a service constructor may need.
type deps struct {
	Mode    config.Mode
	Config  config.Config
	Getenv  func(string) string
	Admin   *pgxpool.Pool // DATABASE_URL role: owner of the schemas
	User    *pgxpool.Pool // role authenticator: requests on behalf of callers
	Replica *pgxpool.Pool // role authenticator on the read replica (nil: none)
	// Listener is the node's one connection LISTENing for the control
	// plane's notifications (on the admin pool): REST, API keys, deployed
	// functions, net and the read-replica router subscribe to it.
	Listener  *pg.Listener
	Keys      *jwt.Keys
	Log       *slog.Logger
	PublicURL string // the API URL clients use
	AppURL    string // the app server's URL ("" when off)

	// Metrics is the registry /metrics serves: a service registers its
	// collectors here (the realtime service: telemetry.NewRealtimeMetrics).
	Metrics prometheus.Registerer
}

// devDefaults are the settings `basalt dev` runs with unless the
// environment says otherwise: mail confirmed at sign-up with a dev mailbox,
// anonymous sign-ins, generous rate limits (every tab and test shares one
// IP), and links that point at this machine.
func devDefaults(d deps) map[string]string {
	site := d.AppURL
	if site == "" {
		site = d.PublicURL
	}
	return map[string]string{
		"BASALT_AUTH_SITE_URL":                            site,
		"BASALT_AUTH_URI_ALLOW_LIST":                      site + "/**,http://localhost:5173/**,http://127.0.0.1:5173/**",
		"BASALT_AUTH_MAILER_AUTOCONFIRM":                  "true",
		"BASALT_AUTH_DEV_MAILBOX":                         "true",
		"BASALT_AUTH_EXTERNAL_ANONYMOUS_USERS_ENABLED":    "true",
		"BASALT_AUTH_SMTP_MAX_FREQUENCY":                  "1s",
		"BASALT_AUTH_RATE_LIMIT_EMAIL_SENT":               "10000",
		"BASALT_AUTH_RATE_LIMIT_SMS_SENT":                 "10000",
		"BASALT_AUTH_RATE_LIMIT_OTP":                      "10000",
		"BASALT_AUTH_RATE_LIMIT_TOKEN_REFRESH":            "100000",
		"BASALT_AUTH_RATE_LIMIT_VERIFY":                   "10000",
		"BASALT_AUTH_RATE_LIMIT_ANONYMOUS_USERS":          "10000",
		"BASALT_AUTH_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY": "10000",
		// Every tab, test and journey of a dev machine signs in from one
		// process: let sign-ins queue for the hashing pool instead of
		// answering 429 after half a second, as production does.
		"BASALT_AUTH_PASSWORD_HASH_MAX_WAIT": "15s",
		// Where the OAuth server (off unless BASALT_AUTH_OAUTH_SERVER_ENABLED)
		// sends users to consent: the app's page.
		"BASALT_AUTH_OAUTH_SERVER_AUTHORIZATION_PATH": "/oauth/consent",
		"STORAGE_FILE_DIR":                            filepath.Join(d.Config.DataDir, "storage"),
		"SITE_URL":                                    site,
		// Webhooks and net.http_* may call services on this machine.
		"BASALT_NET_ALLOWED_CIDRS": "127.0.0.0/8,::1/128",
	}
}

// checkSettings reads every service's and the app's settings without
// building anything, so that a bad configuration is refused before any
// connection with every problem named at once (with base, the binary's own).
func checkSettings(base error, getenv func(string) string) error {
	errs := []error{base}
	_, err := auth.ConfigFromEnv(getenv)
	errs = append(errs, err)
	_, err = rest.ConfigFromEnv(getenv)
	errs = append(errs, err)
	_, err = storage.ConfigFromEnv(getenv)
	errs = append(errs, err)
	_, err = functions.ConfigFromEnv(getenv)
	errs = append(errs, err)
	_, err = realtime.ConfigFromEnv(getenv)
	errs = append(errs, err)
	_, err = studio.ConfigFromEnv(getenv, false)
	errs = append(errs, err)
	_, err = netsend.ConfigFromEnv(getenv)
	errs = append(errs, err)
	_, err = accesslog.ConfigFromEnv(getenv)
	errs = append(errs, err)
	if theApp.CheckSettings != nil {
		errs = append(errs, theApp.CheckSettings(getenv))
	}
	return config.Join(errs...)
}

// buildServices constructs the services the gateway mounts; this is the one
// place where services are wired. The returned cleanup stops what the
// services run in the background.
func buildServices(ctx context.Context, d deps) (gateway.Services, func(), error) {
	var svcs gateway.Services
	var closers []func()
	cleanup := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	getenv := d.Getenv
	if d.Mode == config.Dev {
		defaults := devDefaults(d)
		getenv = func(k string) string {
			if v := d.Getenv(k); v != "" {
				return v
			}
			return defaults[k]
		}
	}
	// Every service builds its links from the one public API URL.
	withURL := func(k string) string {
		if k == "BASALT_AUTH_API_EXTERNAL_URL" && getenv(k) == "" && getenv("GOTRUE_API_EXTERNAL_URL") == "" {
			return d.PublicURL
		}
		return getenv(k)
	}

	// With a read replica, REST reads go to it; writes through any service
	// pin the writer to the primary until the replica has them.
	restOpts := []rest.Option{rest.WithLogger(d.Log), rest.WithListener(d.Listener)}
	markWrites := func(h http.Handler) http.Handler { return h }
	if d.Replica != nil {
		router := replica.New(replica.Config{MaxLag: d.Config.ReadReplicaMaxLag, Poll: d.Config.ReadReplicaPoll, Listener: d.Listener},
			d.Admin, d.Replica, d.Log)
		closers = append(closers, router.Close)
		if d.Metrics != nil {
			for _, c := range router.Collectors() {
				if err := d.Metrics.Register(c); err != nil {
					return svcs, cleanup, fmt.Errorf("read replica metrics: %w", err)
				}
			}
		}
		restOpts = append(restOpts, rest.WithReplica(router))
		markWrites = router.MarkWrites
	}

	authCfg, err := auth.ConfigFromEnv(withURL)
	if err != nil {
		return svcs, cleanup, err
	}
	authSvc, err := auth.New(authCfg, d.Admin, d.Keys, auth.WithLogger(d.Log))
	if err != nil {
		return svcs, cleanup, fmt.Errorf("auth: %w", err)
	}
	svcs.Auth = markWrites(authSvc)

	restCfg, err := rest.ConfigFromEnv(getenv)
	if err != nil {
		return svcs, cleanup, err
	}
	restSvc, err := rest.New(restCfg, d.User, d.Admin, restOpts...)
	if err != nil {
		return svcs, cleanup, fmt.Errorf("rest: %w", err)
	}
	closers = append(closers, restSvc.Close)
	svcs.REST = restSvc

	storageCfg, err := storage.ConfigFromEnv(getenv)
	if err != nil {
		return svcs, cleanup, err
	}
	backend, err := storageBackend(ctx, storageCfg)
	if err != nil {
		return svcs, cleanup, err
	}
	storageSvc, err := storage.New(storageCfg, d.Admin, d.User, d.Keys, backend, storage.WithLogger(d.Log))
	if err != nil {
		return svcs, cleanup, fmt.Errorf("storage: %w", err)
	}
	svcs.Storage = markWrites(storageSvc)

	rt, err := realtime.FromEnv(getenv, d.Admin, d.User, d.Keys, d.Log, d.Metrics)
	if err != nil {
		return svcs, cleanup, fmt.Errorf("realtime: %w", err)
	}
	closers = append(closers, rt.Close)
	svcs.Realtime = rt

	fnSvc, fnClose, err := buildFunctions(ctx, d, getenv)
	closers = append(closers, fnClose)
	if err != nil {
		return svcs, cleanup, fmt.Errorf("functions: %w", err)
	}
	svcs.Functions = markWrites(fnSvc)

	stopNet, err := startIntegrations(ctx, d, getenv)
	if err != nil {
		return svcs, cleanup, err
	}
	closers = append(closers, stopNet)
	return svcs, cleanup, nil
}

// startIntegrations creates pg_cron when the server was set up for it
// since the migrations ran (and says how when it was not), and starts this
// node's sender of the requests queued with net.http_* and webhooks. The
// returned stop waits for the requests in flight.
func startIntegrations(ctx context.Context, d deps, getenv func(string) string) (func(), error) {
	if st, err := pgmodules.EnableCron(ctx, d.Admin); err != nil {
		d.Log.Warn("cron: cannot read pg_cron's status", "err", err)
	} else if !st.Enabled {
		d.Log.Info("cron: off: "+st.Problem, "docs", "deploy/README.md#cron")
	}
	cfg, err := netsend.ConfigFromEnv(getenv)
	if err != nil {
		return func() {}, err
	}
	cfg.Listener = d.Listener
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		netsend.New(cfg, d.Admin, d.Log).Run(runCtx)
	}()
	return func() { cancel(); <-done }, nil
}

// healthDetails is what /health adds when the database answers: whether
// cron is on, and how to turn it on when it is not.
func healthDetails(admin *pgxpool.Pool) func(context.Context) map[string]any {
	return func(ctx context.Context) map[string]any {
		st, err := pgmodules.Cron(ctx, admin)
		if err != nil {
			return nil
		}
		return map[string]any{"cron": st}
	}
}

// storageBackend opens the configured object store.
func storageBackend(ctx context.Context, cfg storage.Config) (storage.Backend, error) {
	if cfg.Backend == "s3" {
		b, err := s3backend.New(ctx, cfg.S3)
		if err != nil {
			return nil, fmt.Errorf("storage s3 backend: %w", err)
		}
		return b, nil
	}
	dir := cfg.FileDir
	if dir == "" {
		dir = filepath.Join(".basalt", "storage")
	}
	b, err := fsbackend.New(dir)
	if err != nil {
		return nil, fmt.Errorf("storage file backend: %w", err)
	}
	return b, nil
}
