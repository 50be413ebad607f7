package main

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
)

// TestFunctionsTestRegistry: the functions-js suite's functions are mounted
// by basalt dev with BASALT_FUNCTIONS_TEST_REGISTRY set, and never
// otherwise (never by basalt serve).
func TestFunctionsTestRegistry(t *testing.T) {
	t.Parallel()
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
	for _, tc := range []struct {
		name string
		mode config.Mode
		env  string
		want bool
	}{
		{"dev with the variable", config.Dev, "1", true},
		{"dev without it", config.Dev, "", false},
		{"serve with the variable", config.Serve, "true", false},
	} {
		getenv := func(k string) string {
			if k == "BASALT_FUNCTIONS_TEST_REGISTRY" {
				return tc.env
			}
			return ""
		}
		h, _, err := buildFunctions(context.Background(), deps{Mode: tc.mode, Keys: keys, User: pool, PublicURL: "http://127.0.0.1:1",
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, getenv)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		names := h.(*functions.Service).Names()
		for _, fn := range []string{"hello", "mirror", "hijack", "slow"} {
			if slices.Contains(names, fn) != tc.want {
				t.Errorf("%s: %s mounted = %v, want %v (%v)", tc.name, fn, !tc.want, tc.want, names)
			}
		}
	}
}
