package main

import (
	"context"
	"io"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/gentypes"
	"github.com/basaltdev/basalt/internal/config"
)

const genUsage = "usage: basalt gen types typescript [--schema NAME]... [--from-migrations] [--data-dir DIR]"

// cmdGen writes generated code to stdout. `basalt gen types typescript`
// prints the Database type supabase-js takes, read from DATABASE_URL, else
// the embedded cluster, or (--from-migrations) from a throwaway database
// built from the migrations on disk.
func cmdGen(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) < 2 || args[0] != "types" || args[1] != "typescript" {
		return usageError{genUsage}
	}
	fs := newFlags("gen types typescript")
	var schemas schemaList
	fs.Var(&schemas, "schema", "schema to include (repeatable; default public)")
	fresh := fs.Bool("from-migrations", false, "build a throwaway database from the migrations on disk")
	dataDir := fs.String("data-dir", "", "data directory")
	if err := fs.Parse(args[2:]); err != nil || fs.NArg() != 0 {
		return usageError{genUsage}
	}
	if len(schemas) == 0 {
		schemas = schemaList{"public"}
	}
	cfg, err := config.Load(config.Dev, envWith(getenv, map[string]string{"BASALT_DATA_DIR": *dataDir}))
	if err != nil {
		return err
	}
	gen := func(db *pgxpool.Pool) error {
		out, err := gentypes.TypeScript(ctx, db, schemas)
		if err != nil {
			return err
		}
		_, err = stdout.Write(out)
		return err
	}
	if *fresh {
		return withScratchDB(ctx, cfg.SQLDir, gen)
	}
	return withAdminPool(ctx, cfg, newLogger(stderr, cfg.LogLevel), gen)
}

// schemaList collects a repeated flag; a value may also list several
// schemas separated by commas, as the Supabase CLI accepts.
type schemaList []string

func (s *schemaList) String() string { return strings.Join(*s, ",") }

func (s *schemaList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*s = append(*s, p)
		}
	}
	return nil
}
