package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/deno"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
)

// functionsDeps builds the functions service's deps with no database (the
// pool connects nothing until used) and a functions folder holding names.
func functionsDeps(t *testing.T, names ...string) (deps, func(string) string) {
	t.Helper()
	if _, err := deno.FindBin(os.Getenv); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	dir := filepath.Join(t.TempDir(), "supabase", "functions")
	for _, n := range names {
		if err := os.MkdirAll(filepath.Join(dir, n), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n, "index.ts"), []byte(`Deno.serve(() => new Response("ts"))`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d := deps{Mode: config.Dev, Keys: keys, User: pool, PublicURL: "http://127.0.0.1:1",
		Config: config.Config{DataDir: t.TempDir()}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	getenv := func(k string) string {
		switch k {
		case "BASALT_FUNCTIONS_DIR":
			return dir
		case "DENO_BIN": // where the check above found deno
			return os.Getenv(k)
		}
		return ""
	}
	return d, getenv
}

// TestTypeScriptBesideGoFunctions: the folder's TypeScript functions are
// served beside the app's Go functions.
func TestTypeScriptBesideGoFunctions(t *testing.T) {
	d, getenv := functionsDeps(t, "hello-ts")
	h, cleanup, err := buildFunctions(context.Background(), d, getenv)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	names := h.(*functions.Service).Names()
	for _, want := range []string{"hello-ts", "transfer-payment"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not served: %v", want, names)
		}
	}
}

// TestGoAndTypeScriptNameClash: a TypeScript function may not take a Go
// function's name; the binary refuses to start instead of choosing.
func TestGoAndTypeScriptNameClash(t *testing.T) {
	d, getenv := functionsDeps(t, "transfer-payment")
	_, cleanup, err := buildFunctions(context.Background(), d, getenv)
	cleanup()
	if err == nil || !strings.Contains(err.Error(), `"transfer-payment" is both a Go function and a TypeScript function`) {
		t.Fatalf("got %v, want the clash refused", err)
	}
}
