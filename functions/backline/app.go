package backline

import (
	"fmt"

	"github.com/basaltdev/basalt/appkit"
	"github.com/basaltdev/basalt/functions"
)

// App plugs Backline into Basalt: its edge functions and, in dev, the demo
// media its seed rows point at. Its schema and seed are SQL files.
func App() appkit.App {
	return appkit.App{Name: "backline", Functions: appFunctions, DevData: seedDemoMedia,
		// Shared tracks, people and public playlists show a preview in chat
		// apps (sql/app/functions/backline.og_meta.sql).
		Previews: &appkit.Previews{Function: "backline.og_meta", Paths: []string{"/track/", "/profiles/", "/playlists/"}},
		CheckSettings: func(getenv func(string) string) error {
			_, err := ConfigFromEnv(getenv)
			return err
		}}
}

// appFunctions builds Backline's functions. In dev without provider keys
// (or with BACKLINE_PAYMENT_SANDBOX=true anywhere), payments go through the
// local sandbox, served as the function "sandbox", so the whole checkout
// flow runs offline.
func appFunctions(env appkit.Env) ([]functions.Function, error) {
	cfg, err := ConfigFromEnv(env.Getenv)
	if err != nil {
		return nil, err
	}
	cfg.Log = env.Log
	cfg.APIURL = env.PublicURL
	if cfg.WantSandbox || (env.Dev && !cfg.ProvidersConfigured()) {
		cfg.UseSandbox(env.FunctionsURL())
		env.Log.Info("card payments use the local sandbox", "checkout", env.FunctionsURL()+"/sandbox/checkout/")
	}
	b, err := New(cfg, env.User)
	if err != nil {
		return nil, fmt.Errorf("backline: %w", err)
	}
	return b.Functions(), nil
}
