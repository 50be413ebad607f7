package main

import (
	"net/http"
	"strconv"

	"github.com/basaltdev/basalt/appkit"
	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/backline"
	"github.com/basaltdev/basalt/internal/config"
)

// theApp is the app this binary serves: the one line that names it.
var theApp = backline.App()

// testRegistryFunctions builds the functions-js suite's own functions
// (functions/testfns). It is nil unless the binary is built with
// `-tags testregistry` (functions_testregistry.go), so a production build
// does not link them at all.
var testRegistryFunctions func() []functions.Function

// buildFunctions builds /functions/v1 with the app's functions.
func buildFunctions(d deps, getenv func(string) string) (http.Handler, error) {
	fcfg, err := functions.ConfigFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	// The gateway verified the caller and applies the CORS policy; the keys
	// only matter for a request that did not come through it.
	fcfg.Keys, fcfg.Log, fcfg.GatewayCORS = d.Keys, d.Log, true
	var fns []functions.Function
	if theApp.Functions != nil {
		fns, err = theApp.Functions(appkit.Env{Getenv: getenv, User: d.User, Log: d.Log,
			PublicURL: d.PublicURL, Dev: d.Mode == config.Dev})
		if err != nil {
			return nil, err
		}
	}
	// The functions-js suite's own functions, for running it against
	// basalt dev (compat/official); never in basalt serve, and only in a
	// binary built with them.
	if d.Mode == config.Dev && testRegistry(getenv("BASALT_FUNCTIONS_TEST_REGISTRY")) {
		if testRegistryFunctions == nil {
			d.Log.Warn("functions: BASALT_FUNCTIONS_TEST_REGISTRY is set, but this binary has no test registry (build it with -tags testregistry)")
		} else {
			fns = append(fns, testRegistryFunctions()...)
			d.Log.Info("functions: the test registry is mounted", "functions", "hello, mirror, hijack, slow")
		}
	}
	return functions.New(fcfg, fns...)
}

// testRegistry reads BASALT_FUNCTIONS_TEST_REGISTRY: 1/true mounts it.
func testRegistry(v string) bool {
	on, _ := strconv.ParseBool(v)
	return on
}
