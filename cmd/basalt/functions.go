package main

import (
	"net/http"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/backline"
	"github.com/basaltdev/basalt/internal/config"
)

// buildFunctions builds /functions/v1 with Backline's functions. In dev
// without provider keys (or with BACKLINE_PAYMENT_SANDBOX=true anywhere),
// payments go through the local sandbox, served as the function "sandbox",
// so the whole checkout flow runs offline.
func buildFunctions(d deps, getenv func(string) string) (http.Handler, error) {
	fcfg, err := functions.ConfigFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	// The gateway verified the caller and applies the CORS policy; the keys
	// only matter for a request that did not come through it.
	fcfg.Keys, fcfg.Log, fcfg.GatewayCORS = d.Keys, d.Log, true

	bcfg, err := backline.ConfigFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	bcfg.Log = d.Log
	if bcfg.WantSandbox || (d.Mode == config.Dev && !bcfg.ProvidersConfigured()) {
		bcfg.UseSandbox(d.PublicURL + "/functions/v1")
		d.Log.Info("card payments use the local sandbox", "checkout", d.PublicURL+"/functions/v1/sandbox/checkout/")
	}
	bl, err := backline.New(bcfg, d.User)
	if err != nil {
		return nil, err
	}
	return functions.New(fcfg, bl.Functions()...)
}
