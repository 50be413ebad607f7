// Package migrate applies a source's SQL files to a database: numbered
// migrations once each, then repeatable files whenever their content changes.
//
// Numbered files sit at the source's root, named VERSION_description.sql, and
// are applied in version order. VERSION_description.down.sql, when present,
// undoes its migration (Down); it is never applied going up. Every applied
// file is recorded with a SHA-256 checksum in basalt.schema_migrations; a file
// whose content changed after it was applied is refused, unless it names the
// recorded checksum in a `-- replaces:` line (a rewrite that moved definitions
// into repeatable files).
//
// Repeatable files sit in the source's folders (functions/, policies/, …):
// each holds the one definition of a function, view or set of policies,
// written to be run again (CREATE OR REPLACE). They are applied after the
// numbered files, in path order, except that a file comes after the files its
// `-- requires:` lines name; a file is applied when it is new or changed, and
// all of them after a run that applied a numbered file (which may have dropped
// what they define). Their checksums are in basalt.schema_repeatables.
//
// Each numbered file is applied in its own transaction; the repeatable files
// due in a run are applied together in one, so one that fails leaves none of
// them applied. Applying a numbered file forgets the repeatables' records in
// its transaction, so the next run applies them all even if this one stopped
// before them. A session-level advisory lock serialises runners, so several
// nodes starting at once apply each file exactly once.
package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// lockKey is the advisory lock id held while migrating ("basalt" in ASCII).
const lockKey int64 = 0x62617361_6c74

// Source is a named set of migration files (for example "platform" or "app").
type Source struct {
	Name string
	FS   fs.FS // files at its root; only *.sql are read
}

// Migration is one file of a Source: a numbered migration or a repeatable
// file.
type Migration struct {
	Source   string
	Version  string // "" for a repeatable file
	Name     string // file name; a repeatable's path in the source, e.g. "functions/x.sql"
	SQL      string
	Checksum string // of the up file only: adding a down file changes nothing applied
	DownName string // VERSION_description.down.sql, "" when there is none
	DownSQL  string
	// Replaces lists checksums of earlier contents of a numbered file that a
	// database may have recorded (its `-- replaces:` lines).
	Replaces   []string
	Repeatable bool
	Requires   []string // a repeatable's `-- requires:` files, applied before it
}

// downSuffix marks the file that undoes a migration.
const downSuffix = ".down.sql"

// Status describes one migration against the database.
type Status struct {
	Migration
	AppliedAt *time.Time
	Changed   bool // applied with a different checksum (a repeatable is then due again)
	Missing   bool // applied, but its file is gone
}

// ErrChanged is wrapped by errors about edited, already applied migrations.
var ErrChanged = errors.New("applied migration was changed")

// Load reads a source's files: the numbered migrations in version order,
// each with its down file, then the repeatable files in the order they are
// applied.
func Load(src Source) ([]Migration, error) {
	out, err := loadNumbered(src)
	if err != nil {
		return nil, err
	}
	reps, err := loadRepeatables(src)
	if err != nil {
		return nil, err
	}
	return append(out, reps...), nil
}

func loadNumbered(src Source) ([]Migration, error) {
	entries, err := fs.ReadDir(src.FS, ".")
	if err != nil {
		return nil, fmt.Errorf("read %s migrations: %w", src.Name, err)
	}
	var out []Migration
	seen := map[string]string{}
	downs := map[string]string{} // version -> down file name
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		down := strings.HasSuffix(e.Name(), downSuffix)
		version, _, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		if !ok || version == "" {
			return nil, fmt.Errorf("%s migration %q: name must be VERSION_description.sql", src.Name, e.Name())
		}
		if down {
			if prev, dup := downs[version]; dup {
				return nil, fmt.Errorf("%s migrations %q and %q share version %s", src.Name, prev, e.Name(), version)
			}
			downs[version] = e.Name()
			continue
		}
		if prev, dup := seen[version]; dup {
			return nil, fmt.Errorf("%s migrations %q and %q share version %s", src.Name, prev, e.Name(), version)
		}
		seen[version] = e.Name()
		b, err := fs.ReadFile(src.FS, path.Join(".", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", e.Name(), err)
		}
		h, err := parseHeader(string(b))
		if err != nil {
			return nil, fmt.Errorf("%s migration %s: %w", src.Name, e.Name(), err)
		}
		if len(h.requires) > 0 {
			return nil, fmt.Errorf("%s migration %s: only a repeatable file declares `-- requires:`", src.Name, e.Name())
		}
		out = append(out, Migration{Source: src.Name, Version: version, Name: e.Name(), SQL: string(b), Checksum: checksum(b),
			Replaces: h.replaces})
	}
	for i, m := range out {
		name, ok := downs[m.Version]
		if !ok {
			continue
		}
		if want := strings.TrimSuffix(m.Name, ".sql") + downSuffix; name != want {
			return nil, fmt.Errorf("%s down migration %q must be named %q, after its migration", src.Name, name, want)
		}
		b, err := fs.ReadFile(src.FS, path.Join(".", name))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		out[i].DownName, out[i].DownSQL = name, string(b)
		delete(downs, m.Version)
	}
	for _, name := range downs {
		return nil, fmt.Errorf("%s down migration %q has no migration %q", src.Name, name, strings.TrimSuffix(name, downSuffix)+".sql")
	}
	sort.Slice(out, func(i, j int) bool { return versionLess(out[i].Version, out[j].Version) })
	return out, nil
}

// versionLess orders numerically when both versions are digits, else lexically.
func versionLess(a, b string) bool {
	if len(a) != len(b) && isDigits(a) && isDigits(b) {
		return len(a) < len(b)
	}
	return a < b
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func checksum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// The bookkeeping: numbered migrations by version, repeatable files by path.
const ddl = `CREATE SCHEMA IF NOT EXISTS basalt;
CREATE TABLE IF NOT EXISTS basalt.schema_migrations (
  source text NOT NULL,
  version text NOT NULL,
  name text NOT NULL,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source, version)
);
CREATE TABLE IF NOT EXISTS basalt.schema_repeatables (
  source text NOT NULL,
  name text NOT NULL,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source, name)
)`

// Up applies what is due in each source, in the order given: its pending
// numbered migrations, each in its own transaction, then its new and changed
// repeatable files (all of them after a numbered migration), together in
// one transaction. It returns the files it applied. log (may be nil) is told
// about each file.
func Up(ctx context.Context, db *pgxpool.Pool, log func(string), sources ...Source) ([]Migration, error) {
	conn, err := db.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: acquire connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
		return nil, fmt.Errorf("migrate: take advisory lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockKey) //nolint:errcheck
	if _, err := conn.Exec(ctx, ddl); err != nil {
		return nil, fmt.Errorf("migrate: create bookkeeping tables: %w", err)
	}
	if log == nil {
		log = func(string) {}
	}
	var applied []Migration
	for _, src := range sources {
		migs, err := Load(src)
		if err != nil {
			return applied, err
		}
		done, err := upSource(ctx, conn.Conn(), log, src.Name, migs)
		applied = append(applied, done...)
		if err != nil {
			return applied, err
		}
	}
	return applied, nil
}

// upSource applies one source's pending numbered migrations, each in its own
// transaction, then its due repeatable files in one transaction.
func upSource(ctx context.Context, conn *pgx.Conn, log func(string), source string, migs []Migration) ([]Migration, error) {
	done, err := records(ctx, conn, source)
	if err != nil {
		return nil, fmt.Errorf("read applied %s migrations: %w", source, err)
	}
	reps, err := repeatableRecords(ctx, conn, source)
	if err != nil {
		return nil, fmt.Errorf("read applied %s repeatable files: %w", source, err)
	}
	var pending, rewritten, repeatables []Migration
	for _, m := range migs {
		if m.Repeatable {
			repeatables = append(repeatables, m)
			continue
		}
		r, ok := done[m.Version]
		switch {
		case !ok:
			pending = append(pending, m)
		case r.sum == m.Checksum:
		case slices.Contains(m.Replaces, r.sum):
			rewritten = append(rewritten, m)
		default:
			return nil, fmt.Errorf("%s migration %s was edited after it was applied (checksum %s, recorded %s): "+
				"never change an applied migration, add a new one instead: %w", m.Source, m.Name, short(m.Checksum), short(r.sum), ErrChanged)
		}
	}
	var due []Migration
	for _, m := range repeatables {
		if r, ok := reps[m.Name]; len(pending) > 0 || !ok || r.sum != m.Checksum {
			due = append(due, m)
		}
		delete(reps, m.Name)
	}
	var applied []Migration
	for _, m := range pending {
		log(fmt.Sprintf("applying %s migration %s", m.Source, m.Name))
		// Forgetting the repeatables in the same transaction makes the rule
		// "all of them after a numbered migration" hold even when this run
		// stops before they are applied.
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DELETE FROM basalt.schema_repeatables WHERE source = $1`, m.Source); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO basalt.schema_migrations (source, version, name, checksum) VALUES ($1, $2, $3, $4)`,
				m.Source, m.Version, m.Name, m.Checksum)
			return err
		})
		if err != nil {
			return applied, fmt.Errorf("apply %s migration %s: %w", m.Source, m.Name, err)
		}
		applied = append(applied, m)
	}
	if len(rewritten)+len(due)+len(reps) == 0 {
		return applied, nil
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, m := range rewritten {
			log(fmt.Sprintf("recording the rewritten %s migration %s", m.Source, m.Name))
			if _, err := tx.Exec(ctx, `UPDATE basalt.schema_migrations SET checksum = $3 WHERE source = $1 AND version = $2`,
				m.Source, m.Version, m.Checksum); err != nil {
				return err
			}
		}
		if err := applyRepeatables(ctx, tx, log, due); err != nil {
			return err
		}
		for name := range reps {
			log(fmt.Sprintf("forgetting %s repeatable %s: its file is gone", source, name))
			if _, err := tx.Exec(ctx, `DELETE FROM basalt.schema_repeatables WHERE source = $1 AND name = $2`, source, name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return applied, fmt.Errorf("%s: no repeatable file of this run was applied: %w", source, err)
	}
	return append(applied, due...), nil
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

// StatusOf lists every file of the sources with whether it is applied, and
// every applied file that is gone: numbered migrations in version order,
// then repeatable files in the order they are applied.
func StatusOf(ctx context.Context, db *pgxpool.Pool, sources ...Source) ([]Status, error) {
	// A database migrated before repeatable files existed has the first
	// table only.
	var hasMigrations, hasRepeatables bool
	if err := db.QueryRow(ctx, `SELECT to_regclass('basalt.schema_migrations') IS NOT NULL,
		to_regclass('basalt.schema_repeatables') IS NOT NULL`).Scan(&hasMigrations, &hasRepeatables); err != nil {
		return nil, fmt.Errorf("migrate status: %w", err)
	}
	var out []Status
	for _, src := range sources {
		migs, err := Load(src)
		if err != nil {
			return nil, err
		}
		done, reps := map[string]record{}, map[string]record{}
		if hasMigrations {
			if done, err = records(ctx, db, src.Name); err != nil {
				return nil, fmt.Errorf("migrate status: %w", err)
			}
		}
		if hasRepeatables {
			if reps, err = repeatableRecords(ctx, db, src.Name); err != nil {
				return nil, fmt.Errorf("migrate status: %w", err)
			}
		}
		var numbered, repeatable []Status
		for _, m := range migs {
			st := Status{Migration: m}
			book, key := done, m.Version
			if m.Repeatable {
				book, key = reps, m.Name
			}
			if r, ok := book[key]; ok {
				at := r.at
				st.AppliedAt = &at
				st.Changed = r.sum != m.Checksum && !slices.Contains(m.Replaces, r.sum)
				delete(book, key)
			}
			if m.Repeatable {
				repeatable = append(repeatable, st)
			} else {
				numbered = append(numbered, st)
			}
		}
		for v, r := range done {
			at := r.at
			numbered = append(numbered, Status{Migration: Migration{Source: src.Name, Version: v, Name: r.name, Checksum: r.sum},
				AppliedAt: &at, Missing: true})
		}
		sort.SliceStable(numbered, func(i, j int) bool { return versionLess(numbered[i].Version, numbered[j].Version) })
		var gone []Status
		for name, r := range reps {
			at := r.at
			gone = append(gone, Status{Migration: Migration{Source: src.Name, Name: name, Checksum: r.sum, Repeatable: true},
				AppliedAt: &at, Missing: true})
		}
		sort.Slice(gone, func(i, j int) bool { return gone[i].Name < gone[j].Name })
		out = append(append(append(out, numbered...), repeatable...), gone...)
	}
	return out, nil
}

// record is one row of the bookkeeping.
type record struct {
	name, sum string
	at        time.Time
}

type querier interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}

// records reads a source's applied numbered migrations by version.
func records(ctx context.Context, db querier, source string) (map[string]record, error) {
	rows, err := db.Query(ctx, `SELECT version, name, checksum, applied_at FROM basalt.schema_migrations WHERE source = $1`, source)
	if err != nil {
		return nil, err
	}
	out := map[string]record{}
	var v string
	var r record
	_, err = pgx.ForEachRow(rows, []any{&v, &r.name, &r.sum, &r.at}, func() error { out[v] = r; return nil })
	return out, err
}

// ErrNoDown is wrapped by Down's error when the migration to undo has no
// down file.
var ErrNoDown = errors.New("no down migration")

// ErrNothingApplied is returned by Down when no migration of the source is
// applied.
var ErrNothingApplied = errors.New("no migration is applied")

// Down undoes the last applied migration of src (the highest applied
// version) with its down file, in one transaction that also removes its
// record, so the next Up applies the file again. The up file may have been
// edited since; that is how a migration under development is redone.
//
// The same transaction forgets every repeatable file of src, so the next Up
// applies them all again from the files as they are then. A down file that
// removes something a repeatable's object uses (a column a view reads)
// drops that object itself (DROP … CASCADE); Up brings it back.
func Down(ctx context.Context, db *pgxpool.Pool, src Source) (Migration, error) {
	migs, err := Load(src)
	if err != nil {
		return Migration{}, err
	}
	conn, err := db.Acquire(ctx)
	if err != nil {
		return Migration{}, fmt.Errorf("migrate: acquire connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
		return Migration{}, fmt.Errorf("migrate: take advisory lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockKey) //nolint:errcheck
	if _, err := conn.Exec(ctx, ddl); err != nil {
		return Migration{}, fmt.Errorf("migrate: create bookkeeping tables: %w", err)
	}
	done, err := records(ctx, conn, src.Name)
	if err != nil {
		return Migration{}, fmt.Errorf("read applied %s migrations: %w", src.Name, err)
	}
	last := ""
	for v := range done {
		if last == "" || versionLess(last, v) {
			last = v
		}
	}
	if last == "" {
		return Migration{}, fmt.Errorf("%s: %w", src.Name, ErrNothingApplied)
	}
	var m Migration
	for _, x := range migs {
		if !x.Repeatable && x.Version == last {
			m = x
		}
	}
	if m.Name == "" {
		return Migration{}, fmt.Errorf("%s migration %s was applied but its file is gone, so it cannot be undone: %w",
			src.Name, done[last].name, ErrNoDown)
	}
	if m.DownName == "" {
		return m, fmt.Errorf("%s migration %s has no down file (%s): %w",
			src.Name, m.Name, strings.TrimSuffix(m.Name, ".sql")+downSuffix, ErrNoDown)
	}
	err = pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, m.DownSQL); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM basalt.schema_repeatables WHERE source = $1`, src.Name); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM basalt.schema_migrations WHERE source = $1 AND version = $2`, src.Name, m.Version)
		return err
	})
	if err != nil {
		return m, fmt.Errorf("undo %s migration %s with %s: %w", src.Name, m.Name, m.DownName, err)
	}
	return m, nil
}

// NewFileName returns the file name `basalt migrate new NAME` creates: a UTC
// timestamp version, as Supabase CLI migrations use, and a snake_case name.
func NewFileName(now time.Time, name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			if s := b.String(); s != "" && !strings.HasSuffix(s, "_") {
				b.WriteByte('_')
			}
		}
	}
	return now.UTC().Format("20060102150405") + "_" + strings.Trim(b.String(), "_") + ".sql"
}
