// Package migrate applies numbered SQL files to a database, once each.
//
// Files are named VERSION_description.sql and applied in version order, each
// in its own transaction. Every applied file is recorded with a SHA-256
// checksum in basalt.schema_migrations; a file whose content changed after it
// was applied is refused. A session-level advisory lock serialises runners, so
// several nodes starting at once apply each file exactly once.
package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
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

// Migration is one file of a Source.
type Migration struct {
	Source   string
	Version  string
	Name     string // file name
	SQL      string
	Checksum string
}

// Status describes one migration against the database.
type Status struct {
	Migration
	AppliedAt *time.Time
	Changed   bool // applied with a different checksum
}

// ErrChanged is wrapped by errors about edited, already applied migrations.
var ErrChanged = errors.New("applied migration was changed")

// Load reads and orders a source's migrations.
func Load(src Source) ([]Migration, error) {
	entries, err := fs.ReadDir(src.FS, ".")
	if err != nil {
		return nil, fmt.Errorf("read %s migrations: %w", src.Name, err)
	}
	var out []Migration
	seen := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		version, _, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		if !ok || version == "" {
			return nil, fmt.Errorf("%s migration %q: name must be VERSION_description.sql", src.Name, e.Name())
		}
		if prev, dup := seen[version]; dup {
			return nil, fmt.Errorf("%s migrations %q and %q share version %s", src.Name, prev, e.Name(), version)
		}
		seen[version] = e.Name()
		b, err := fs.ReadFile(src.FS, path.Join(".", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", e.Name(), err)
		}
		sum := sha256.Sum256(b)
		out = append(out, Migration{Source: src.Name, Version: version, Name: e.Name(), SQL: string(b), Checksum: hex.EncodeToString(sum[:])})
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

const ddl = `CREATE SCHEMA IF NOT EXISTS basalt;
CREATE TABLE IF NOT EXISTS basalt.schema_migrations (
  source text NOT NULL,
  version text NOT NULL,
  name text NOT NULL,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source, version)
)`

// Up applies every pending migration of the sources, in the order given, and
// returns the ones it applied. log (may be nil) is told about each file.
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
		return nil, fmt.Errorf("migrate: create bookkeeping table: %w", err)
	}
	var applied []Migration
	for _, src := range sources {
		migs, err := Load(src)
		if err != nil {
			return applied, err
		}
		done, err := appliedChecksums(ctx, conn.Conn(), src.Name)
		if err != nil {
			return applied, err
		}
		for _, m := range migs {
			if sum, ok := done[m.Version]; ok {
				if sum != m.Checksum {
					return applied, fmt.Errorf("%s migration %s was edited after it was applied (checksum %s, recorded %s): "+
						"never change an applied migration, add a new one instead: %w", m.Source, m.Name, short(m.Checksum), short(sum), ErrChanged)
				}
				continue
			}
			if log != nil {
				log(fmt.Sprintf("applying %s migration %s", m.Source, m.Name))
			}
			err := pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, m.SQL); err != nil {
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
	}
	return applied, nil
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

func appliedChecksums(ctx context.Context, conn *pgx.Conn, source string) (map[string]string, error) {
	rows, err := conn.Query(ctx, `SELECT version, checksum FROM basalt.schema_migrations WHERE source = $1`, source)
	if err != nil {
		return nil, fmt.Errorf("read applied %s migrations: %w", source, err)
	}
	out := map[string]string{}
	var v, c string
	_, err = pgx.ForEachRow(rows, []any{&v, &c}, func() error { out[v] = c; return nil })
	return out, err
}

// StatusOf lists every migration of the sources with whether it is applied.
func StatusOf(ctx context.Context, db *pgxpool.Pool, sources ...Source) ([]Status, error) {
	var exists bool
	if err := db.QueryRow(ctx, `SELECT to_regclass('basalt.schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, fmt.Errorf("migrate status: %w", err)
	}
	var out []Status
	for _, src := range sources {
		migs, err := Load(src)
		if err != nil {
			return nil, err
		}
		type rec struct {
			sum string
			at  time.Time
		}
		done := map[string]rec{}
		if exists {
			rows, err := db.Query(ctx, `SELECT version, checksum, applied_at FROM basalt.schema_migrations WHERE source = $1`, src.Name)
			if err != nil {
				return nil, fmt.Errorf("migrate status: %w", err)
			}
			var v, c string
			var at time.Time
			if _, err := pgx.ForEachRow(rows, []any{&v, &c, &at}, func() error { done[v] = rec{c, at}; return nil }); err != nil {
				return nil, err
			}
		}
		for _, m := range migs {
			st := Status{Migration: m}
			if r, ok := done[m.Version]; ok {
				at := r.at
				st.AppliedAt = &at
				st.Changed = r.sum != m.Checksum
			}
			out = append(out, st)
		}
	}
	return out, nil
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
