package migrate

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/lazy"
)

// header is what a file's leading comment lines declare.
type header struct {
	requires []string // repeatable files to apply first
	replaces []string // earlier checksums of a rewritten numbered file
}

var (
	requiresLine = lazy.NewRegexp(`^--\s*requires:\s*(.+)$`)
	replacesLine = lazy.NewRegexp(`^--\s*replaces:\s*(.+)$`)
	checksumText = lazy.NewRegexp(`^[0-9a-f]{64}$`)
)

// parseHeader reads the `-- requires:` and `-- replaces:` lines of the
// comment block a file starts with. Both take a comma- or space-separated
// list.
func parseHeader(sql string) (header, error) {
	var h header
	for _, line := range strings.Split(sql, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "--") {
			break
		}
		if m := requiresLine.FindStringSubmatch(line); m != nil {
			h.requires = append(h.requires, strings.FieldsFunc(m[1], isListSeparator)...)
		}
		if m := replacesLine.FindStringSubmatch(line); m != nil {
			for _, sum := range strings.FieldsFunc(m[1], isListSeparator) {
				if !checksumText.MatchString(sum) {
					return h, fmt.Errorf("`-- replaces:` takes SHA-256 checksums in hex, not %q", sum)
				}
				h.replaces = append(h.replaces, sum)
			}
		}
	}
	return h, nil
}

func isListSeparator(r rune) bool { return r == ',' || r == ' ' || r == '\t' }

// skipDir leaves out folders that hold no repeatable files.
func skipDir(name string) bool {
	return name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// loadRepeatables reads every *.sql file in the source's folders (not its
// root) and orders them: by path, each after the files it requires.
func loadRepeatables(src Source) ([]Migration, error) {
	byName := map[string]Migration{}
	var names []string
	err := fs.WalkDir(src.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && skipDir(d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.Contains(p, "/") || !strings.HasSuffix(p, ".sql") {
			return nil
		}
		if strings.HasSuffix(p, downSuffix) {
			return fmt.Errorf("%s repeatable %s: a repeatable file has no down file (down forgets every repeatable, up applies them again)", src.Name, p)
		}
		b, err := fs.ReadFile(src.FS, p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		h, err := parseHeader(string(b))
		if err != nil {
			return fmt.Errorf("%s repeatable %s: %w", src.Name, p, err)
		}
		if len(h.replaces) > 0 {
			return fmt.Errorf("%s repeatable %s: only a numbered migration declares `-- replaces:`", src.Name, p)
		}
		byName[p] = Migration{Source: src.Name, Name: p, SQL: string(b), Checksum: checksum(b), Repeatable: true, Requires: h.requires}
		names = append(names, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s repeatable files: %w", src.Name, err)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, r := range byName[n].Requires {
			if _, ok := byName[r]; !ok {
				return nil, fmt.Errorf("%s repeatable %s requires %s, which is not a repeatable file of %s", src.Name, n, r, src.Name)
			}
		}
	}
	// Path order, except that a file waits for the files it requires: each
	// round places the first file (by path) whose requirements are placed.
	out := make([]Migration, 0, len(names))
	placed := map[string]bool{}
	for len(out) < len(names) {
		next := ""
		for _, n := range names {
			if placed[n] {
				continue
			}
			ready := true
			for _, r := range byName[n].Requires {
				ready = ready && placed[r]
			}
			if ready {
				next = n
				break
			}
		}
		if next == "" {
			var left []string
			for _, n := range names {
				if !placed[n] {
					left = append(left, n)
				}
			}
			return nil, fmt.Errorf("%s repeatable files require each other in a cycle: %s", src.Name, strings.Join(left, ", "))
		}
		placed[next] = true
		out = append(out, byName[next])
	}
	return out, nil
}

// applyRepeatables runs due repeatable files in order and records each.
// Function bodies are not checked while the files run (as pg_dump restores),
// so a function may call one defined by a later file; once all have run,
// every function the transaction wrote is checked by its language's
// validator, under its own search_path.
func applyRepeatables(ctx context.Context, tx pgx.Tx, log func(string), due []Migration) error {
	if len(due) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `SET LOCAL check_function_bodies = off`); err != nil {
		return err
	}
	for _, m := range due {
		log(fmt.Sprintf("applying %s repeatable %s", m.Source, m.Name))
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return fmt.Errorf("apply %s repeatable %s: %w", m.Source, m.Name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO basalt.schema_repeatables (source, name, checksum) VALUES ($1, $2, $3)
			ON CONFLICT (source, name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
			m.Source, m.Name, m.Checksum); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `SET LOCAL check_function_bodies = on`); err != nil {
		return err
	}
	return validateFunctions(ctx, tx)
}

// writtenFunctions are the functions created or replaced in this
// transaction, with their language's validator and search_path.
const writtenFunctions = `SELECT p.oid, p.oid::regprocedure::text,
  quote_ident(vn.nspname) || '.' || quote_ident(v.proname),
  coalesce((SELECT substr(c, length('search_path=') + 1) FROM unnest(p.proconfig) c WHERE c LIKE 'search_path=%'),
    current_setting('search_path'))
FROM pg_proc p
JOIN pg_language l ON l.oid = p.prolang
JOIN pg_proc v ON v.oid = l.lanvalidator
JOIN pg_namespace vn ON vn.oid = v.pronamespace
WHERE p.xmin = pg_current_xact_id()::xid AND p.prokind IN ('f', 'p')
ORDER BY 2`

func validateFunctions(ctx context.Context, tx pgx.Tx) error {
	type fn struct {
		oid                     uint32
		name, validator, search string
	}
	rows, err := tx.Query(ctx, writtenFunctions)
	if err != nil {
		return fmt.Errorf("list the functions to check: %w", err)
	}
	fns, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (fn, error) {
		var f fn
		return f, r.Scan(&f.oid, &f.name, &f.validator, &f.search)
	})
	if err != nil {
		return fmt.Errorf("list the functions to check: %w", err)
	}
	var saved string
	if err := tx.QueryRow(ctx, `SELECT current_setting('search_path')`).Scan(&saved); err != nil {
		return err
	}
	for _, f := range fns {
		if _, err := tx.Exec(ctx, `SELECT set_config('search_path', $1, true)`, f.search); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT `+f.validator+`($1)`, f.oid); err != nil {
			return fmt.Errorf("check function %s: %w", f.name, err)
		}
	}
	_, err = tx.Exec(ctx, `SELECT set_config('search_path', $1, true)`, saved)
	return err
}

// repeatableRecords reads a source's applied repeatable files by path.
func repeatableRecords(ctx context.Context, db querier, source string) (map[string]record, error) {
	rows, err := db.Query(ctx, `SELECT name, checksum, applied_at FROM basalt.schema_repeatables WHERE source = $1`, source)
	if err != nil {
		return nil, err
	}
	out := map[string]record{}
	var r record
	_, err = pgx.ForEachRow(rows, []any{&r.name, &r.sum, &r.at}, func() error { out[r.name] = r; return nil })
	return out, err
}
