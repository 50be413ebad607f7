package main

import (
	"context"

	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/basaltdev/basalt/appkit"
	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/backline"
	"github.com/basaltdev/basalt/functions/deno"
	"github.com/basaltdev/basalt/functions/deploy"
	"github.com/basaltdev/basalt/internal/config"
)

// theApp is the app this binary serves: the one line that names it.
var theApp = backline.App()

// buildFunctions builds /functions/v1: the app's Go functions, and the
// TypeScript functions of the project folder and of deploys, run by Deno.
// The returned cleanup stops the Deno workers and the deploy follower.
func buildFunctions(ctx context.Context, d deps, getenv func(string) string) (http.Handler, func(), error) {
	cleanup := func() {}
	fcfg, err := functions.ConfigFromEnv(getenv)
	if err != nil {
		return nil, cleanup, err
	}
	// The gateway verified the caller and applies the CORS policy; the keys
	// only matter for a request that did not come through it.
	fcfg.Keys, fcfg.Log, fcfg.GatewayCORS = d.Keys, d.Log, true
	var fns []functions.Function
	if theApp.Functions != nil {
		fns, err = theApp.Functions(appkit.Env{Getenv: getenv, User: d.User, Log: d.Log,
			PublicURL: d.PublicURL, Dev: d.Mode == config.Dev})
		if err != nil {
			return nil, cleanup, err
		}
	}
	cleanup, err = addTypeScript(ctx, d, &fcfg, fns)
	if err != nil {
		return nil, cleanup, err
	}
	svc, err := functions.New(fcfg, fns...)
	if err != nil {
		cleanup()
		return nil, func() {}, err
	}
	return svc, cleanup, nil
}

// addTypeScript sets up Deno for fcfg: the project folder's functions
// (re-read every second under basalt dev, so edits are served at once),
// deployed versions from Postgres (followed on every node), secrets and
// logs. Without a deno executable TypeScript functions are off, and the
// log says so.
func addTypeScript(ctx context.Context, d deps, fcfg *functions.Config, goFns []functions.Function) (func(), error) {
	var closers []func()
	cleanup := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	ts := fcfg.TypeScript
	getenv := func(k string) string {
		if k == "DENO_BIN" {
			return ts.DenoBin
		}
		return os.Getenv(k)
	}
	bin, err := deno.FindBin(getenv)
	if err != nil {
		d.Log.Warn("functions: TypeScript functions are off", "why", err.Error())
		return cleanup, nil
	}
	runDir := filepath.Join(d.Config.DataDir, "functions")
	var store *deploy.Store
	var deployed *deploy.Source
	if d.Admin != nil {
		secretKey := []byte(ts.SecretsKey)
		if len(secretKey) == 0 {
			secretKey = d.Keys.Secret
		}
		if store, err = deploy.NewStore(d.Admin, secretKey); err != nil {
			return cleanup, err
		}
		if deployed, err = deploy.NewSource(ctx, store, filepath.Join(runDir, "deployed"), d.Log); err != nil {
			return cleanup, err
		}
		deployed.Listener = d.Listener
		follow, stop := context.WithCancel(context.Background())
		go deployed.Run(follow)
		closers = append(closers, stop)
	}
	var logs deno.LogSink
	dbURL := ""
	if d.Admin != nil {
		sink := deploy.NewLogSink(d.Admin, ts.LogRetention, d.Log)
		closers = append(closers, sink.Close)
		logs, dbURL = sink, d.Admin.Config().ConnString()
	}
	rt, err := deno.New(deno.Config{
		DenoBin: bin, WorkDir: filepath.Join(runDir, "run"), CacheDir: filepath.Join(d.Config.DataDir, "deno"),
		MemoryMB: ts.MemoryMB, CPUBudget: ts.CPUBudget, IdleTimeout: ts.IdleTimeout,
		Logs: logs, Log: d.Log,
		Env: func() map[string]string {
			env := map[string]string{}
			if deployed != nil {
				for k, v := range deployed.Secrets() {
					env[k] = v
				}
			}
			// Supabase's own variables win over secrets of the same name.
			env["SUPABASE_URL"] = d.PublicURL
			env["SUPABASE_ANON_KEY"] = d.Keys.AnonKey
			env["SUPABASE_SERVICE_ROLE_KEY"] = d.Keys.ServiceRoleKey
			env["SUPABASE_PUBLISHABLE_KEY"] = d.Keys.PublishableKey
			env["SUPABASE_SECRET_KEY"] = d.Keys.SecretKey
			if dbURL != "" {
				env["SUPABASE_DB_URL"] = dbURL
			}
			return env
		},
	})
	if err != nil {
		cleanup()
		return func() {}, err
	}
	closers = append(closers, rt.Close)
	fcfg.Deno = rt
	// Files first: under basalt dev the folder being edited shadows a
	// deployed version of the same name.
	if st, err := os.Stat(ts.Dir); err == nil && st.IsDir() {
		every := time.Duration(0)
		if d.Mode == config.Dev {
			every = time.Second
		}
		stopWatch := make(chan struct{})
		closers = append(closers, func() { close(stopWatch) })
		local, err := deno.NewLocalSource(ts.Dir, every, stopWatch)
		if err != nil {
			cleanup()
			return func() {}, err
		}
		fcfg.Sources = append(fcfg.Sources, local)
		d.Log.Info("functions: TypeScript functions from files", "dir", ts.Dir, "functions", local.Names())
	}
	if deployed != nil {
		fcfg.Sources = append(fcfg.Sources, deployed)
		goNames := make([]string, len(goFns))
		for i, f := range goFns {
			goNames[i] = f.Name
		}
		fcfg.Admin = deploy.NewAdmin(store, deployed, func(name string) bool { return slices.Contains(goNames, name) })
	}
	return cleanup, nil
}
