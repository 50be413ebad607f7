package main

import (
	"fmt"
	"net/http"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/backline"
	"github.com/basaltdev/basalt/internal/config"
)

// buildFunctions builds /functions/v1 with Backline's functions. In dev,
// without provider keys (or with BACKLINE_PAYMENT_SANDBOX=true anywhere),
// payments go through the local sandbox, served as the function "sandbox",
// so the whole checkout flow runs offline.
func buildFunctions(d deps) (http.Handler, error) {
	fcfg, err := functions.ConfigFromEnv(d.Getenv)
	if err != nil {
		return nil, err
	}
	// The gateway verified the caller and applies the CORS policy.
	fcfg.Keys, fcfg.Log, fcfg.GatewayCORS = d.Keys, d.Log, true

	bcfg, err := backline.ConfigFromEnv(d.Getenv)
	if err != nil {
		return nil, err
	}
	bcfg.Log = d.Log
	if d.Getenv("SITE_URL") == "" && d.Config.AppPort > 0 {
		// Checkouts come back to the app server basalt itself runs.
		bcfg.SiteURL = fmt.Sprintf("http://127.0.0.1:%d", d.Config.AppPort)
	}
	if bcfg.WantSandbox || (d.Mode == config.Dev && !bcfg.ProvidersConfigured()) {
		public := d.Config.PublicURL
		if public == "" {
			public = fmt.Sprintf("http://127.0.0.1:%d", d.Config.APIPort)
		}
		bcfg.UseSandbox(public + "/functions/v1")
		d.Log.Info("card payments use the local sandbox", "checkout", public+"/functions/v1/sandbox")
	}
	bl, err := backline.New(bcfg, d.User)
	if err != nil {
		return nil, err
	}
	return functions.New(fcfg, bl.Functions()...)
}
