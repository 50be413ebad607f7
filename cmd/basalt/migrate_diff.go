package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/migrate"
)

// errDiffers makes `basalt migrate diff` exit non-zero, as diff(1) does.
var errDiffers = errors.New("the database differs from the migrations")

// migrateDown undoes the last applied app migration with its down file, and
// forgets the app's repeatable files so the next up applies them again.
// Platform migrations are part of the binary and are never undone.
func migrateDown(ctx context.Context, admin *pgxpool.Pool, sqlDir string, stdout io.Writer) error {
	var app *migrate.Source
	for _, s := range migrationSources(sqlDir) {
		if s.Name == "app" {
			app = &s
		}
	}
	if app == nil {
		return fmt.Errorf("no app migrations in %s", sqlDir)
	}
	m, err := migrate.Down(ctx, admin, *app)
	if errors.Is(err, migrate.ErrNothingApplied) {
		fmt.Fprintln(stdout, "no app migration is applied")
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "undid %s/%s with %s; the next up applies the repeatable files again\n", m.Source, m.Name, m.DownName)
	return nil
}

// migrateDiff prints how the database differs from the migration files:
// first the bookkeeping (files not applied, applied files edited since,
// applied migrations whose file is gone), then the schema itself against
// a throwaway database built from the files. It fails when anything
// differs.
func migrateDiff(ctx context.Context, admin *pgxpool.Pool, sqlDir string, stdout io.Writer) error {
	sts, err := migrate.StatusOf(ctx, admin, migrationSources(sqlDir)...)
	if err != nil {
		return err
	}
	var book []string
	for _, s := range sts {
		switch {
		case s.Missing:
			book = append(book, fmt.Sprintf("%s/%s: applied %s, but the file is gone", s.Source, s.Name, s.AppliedAt.UTC().Format(time.RFC3339)))
		case s.AppliedAt == nil:
			book = append(book, fmt.Sprintf("%s/%s: not applied", s.Source, s.Name))
		case s.Changed && s.Repeatable:
			book = append(book, fmt.Sprintf("%s/%s: changed since it was applied (the next up applies it again)", s.Source, s.Name))
		case s.Changed:
			book = append(book, fmt.Sprintf("%s/%s: edited after it was applied", s.Source, s.Name))
		}
	}
	live, err := migrate.TakeSnapshot(ctx, admin)
	if err != nil {
		return err
	}
	var changes []migrate.Change
	err = withScratchDB(ctx, sqlDir, func(db *pgxpool.Pool) error {
		files, err := migrate.TakeSnapshot(ctx, db)
		changes = migrate.Compare(live, files)
		return err
	})
	if err != nil {
		return err
	}
	if len(book) == 0 && len(changes) == 0 {
		fmt.Fprintln(stdout, "no differences: every migration is applied as written and the schema is what the files build")
		return nil
	}
	fmt.Fprintln(stdout, "migrations (files against basalt.schema_migrations):")
	if len(book) == 0 {
		fmt.Fprintln(stdout, "  every migration is applied as written")
	}
	for _, l := range book {
		fmt.Fprintln(stdout, "  "+l)
	}
	fmt.Fprintln(stdout, "schema (the database against a throwaway database built from the files):")
	if len(changes) == 0 {
		fmt.Fprintln(stdout, "  the same")
	}
	for _, c := range changes {
		switch {
		case c.Files == nil:
			fmt.Fprintf(stdout, "  + %s (only in the database)\n", c.Object)
		case c.Live == nil:
			fmt.Fprintf(stdout, "  - %s (only in the migrations)\n", c.Object)
		default:
			fmt.Fprintf(stdout, "  ~ %s\n      database:   %s\n      migrations: %s\n", c.Object, indentLines(*c.Live), indentLines(*c.Files))
		}
	}
	return errDiffers
}

// indentLines keeps a multi-line definition under its label.
func indentLines(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n                  ")
}
