package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/basaltdev/basalt/gentypes"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// TestGenTypes runs `basalt gen types typescript` against DATABASE_URL: the
// schemas flag (repeated or comma-separated) reaches the generator, and the
// output is the generator's, on stdout.
func TestGenTypes(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	if _, err := db.Admin.Exec(ctx, `CREATE SCHEMA shop;
		CREATE TYPE shop.size AS ENUM ('s', 'm');
		CREATE TABLE shop.items (id serial PRIMARY KEY, size shop.size NOT NULL);
		CREATE TABLE public.notes (id int PRIMARY KEY, body text)`); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "DATABASE_URL" {
			return db.AdminURL
		}
		return ""
	}
	tests := []struct {
		args    []string
		schemas []string
	}{
		{nil, []string{"public"}},
		{[]string{"--schema", "shop"}, []string{"shop"}},
		{[]string{"--schema", "public", "--schema", "shop"}, []string{"public", "shop"}},
		{[]string{"--schema", "shop,public"}, []string{"shop", "public"}},
	}
	for _, tc := range tests {
		var out, errOut bytes.Buffer
		args := append([]string{"gen", "types", "typescript"}, tc.args...)
		if err := run(ctx, args, &out, &errOut, env); err != nil {
			t.Fatalf("%v: %v (%s)", tc.args, err, errOut.String())
		}
		want, err := gentypes.TypeScript(ctx, db.Admin, tc.schemas)
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != string(want) {
			t.Errorf("%v: output is not the types of %v:\n%s", tc.args, tc.schemas, out.String())
		}
	}
	var out bytes.Buffer
	if err := run(ctx, []string{"gen", "types", "typescript", "--schema", "shop"}, &out, &out, env); err != nil ||
		!strings.Contains(out.String(), `size: Database["shop"]["Enums"]["size"]`) {
		t.Errorf("shop types: %v\n%s", err, out.String())
	}
	for _, bad := range [][]string{{"gen"}, {"gen", "types", "go"}, {"gen", "types", "typescript", "extra"}} {
		var ue usageError
		if err := run(ctx, bad, &out, &out, env); !errors.As(err, &ue) {
			t.Errorf("%v: err = %v, want a usage error", bad, err)
		}
	}
}
