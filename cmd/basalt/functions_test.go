package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
)

// TestFunctionsTestRegistry: a binary that carries the test registry
// mounts it under basalt dev with BASALT_FUNCTIONS_TEST_REGISTRY set, and
// never otherwise (never under basalt serve); one that does not carry it
// mounts nothing, whatever the variable says. (Not parallel: it swaps the
// registry the build tag sets.)
func TestFunctionsTestRegistry(t *testing.T) {
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// A pool that is never used: building the registry connects nothing.
	pool, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	linked := testRegistryFunctions
	t.Cleanup(func() { testRegistryFunctions = linked })
	probe := func() []functions.Function {
		return []functions.Function{{Name: "hello", Handler: func(http.ResponseWriter, *http.Request) error { return nil }}}
	}
	for _, tc := range []struct {
		name     string
		registry func() []functions.Function
		mode     config.Mode
		env      string
		want     bool
	}{
		{"dev with the variable", probe, config.Dev, "1", true},
		{"dev without it", probe, config.Dev, "", false},
		{"serve with the variable", probe, config.Serve, "true", false},
		{"a binary without the registry", nil, config.Dev, "1", false},
	} {
		testRegistryFunctions = tc.registry
		getenv := func(k string) string {
			if k == "BASALT_FUNCTIONS_TEST_REGISTRY" {
				return tc.env
			}
			return ""
		}
		h, err := buildFunctions(deps{Mode: tc.mode, Keys: keys, User: pool, PublicURL: "http://127.0.0.1:1",
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, getenv)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if names := h.(*functions.Service).Names(); slices.Contains(names, "hello") != tc.want {
			t.Errorf("%s: hello mounted = %v, want %v (%v)", tc.name, !tc.want, tc.want, names)
		}
	}
}

// TestProductionBuildLinksNoTestRegistry: the binary as `go build` makes
// it does not link functions/testfns; with -tags testregistry it does.
func TestProductionBuildLinksNoTestRegistry(t *testing.T) {
	t.Parallel()
	const testfns = "github.com/basaltdev/basalt/functions/testfns"
	deps := func(tags ...string) []string {
		t.Helper()
		args := append([]string{"list", "-deps"}, tags...)
		out, err := exec.Command("go", append(args, ".")...).Output()
		if err != nil {
			t.Fatalf("go %v: %v", args, err)
		}
		return strings.Fields(string(out))
	}
	if slices.Contains(deps(), testfns) {
		t.Error("the production build links the test registry")
	}
	if !slices.Contains(deps("-tags", "testregistry"), testfns) {
		t.Error("a build with -tags testregistry does not link the test registry")
	}
}
