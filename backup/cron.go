package backup

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/basaltdev/basalt/internal/lazy"
)

// CronNotRestored is the note Restore leaves when a backup's pg_cron jobs
// cannot come back: pg_cron only exists in the one database the server
// preloads it for (cron.database_name).
const CronNotRestored = "pg_cron's jobs were not restored: pg_cron does not run for this database " +
	"(shared_preload_libraries and cron.database_name, see deploy/README.md)"

// cronEntry matches the table-of-contents lines of pg_cron in a dump: the
// extension, its comment, and the contents of its tables and sequences
// (schema cron).
var cronEntry = lazy.NewRegexp(`\b(EXTENSION - pg_cron|COMMENT - EXTENSION pg_cron|ACL - SCHEMA cron|(TABLE DATA|SEQUENCE SET|ACL) cron) `)

// cronRuns reports whether pg_cron can exist in the target database.
func cronRuns(ctx context.Context, t Target) (bool, error) {
	var ok bool
	err := t.DB.QueryRow(ctx, `SELECT coalesce(current_setting('cron.database_name', true) = current_database(), false)`).Scan(&ok)
	return ok, err
}

// listWithoutCron writes the dump's table of contents without pg_cron's
// entries to a file in dir, for pg_restore --use-list, and says whether
// the dump had any.
func listWithoutCron(ctx context.Context, prog string, env []string, dump, dir string) (string, bool, error) {
	cmd := exec.CommandContext(ctx, prog, "--list", dump)
	cmd.Env = append(os.Environ(), env...)
	toc, err := cmd.Output()
	if err != nil {
		return "", false, fmt.Errorf("list the dump: %w", err)
	}
	if !bytes.Contains(toc, []byte(" EXTENSION - pg_cron ")) {
		return "", false, nil // a schema that merely is called cron stays
	}
	var kept bytes.Buffer
	dropped := false
	sc := bufio.NewScanner(bytes.NewReader(toc))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if cronEntry.MatchString(line + " ") {
			dropped = true
			continue
		}
		kept.WriteString(line + "\n")
	}
	if err := sc.Err(); err != nil {
		return "", false, err
	}
	path := filepath.Join(dir, "restore.list")
	return path, dropped, os.WriteFile(path, kept.Bytes(), 0o644)
}

// adoptCronJobs points jobs restored from another database name at this
// one: pg_cron runs a job in the database its row names.
func adoptCronJobs(ctx context.Context, t Target) error {
	var has bool
	if err := t.DB.QueryRow(ctx, `SELECT to_regclass('cron.job') IS NOT NULL`).Scan(&has); err != nil || !has {
		return err
	}
	_, err := t.DB.Exec(ctx, `UPDATE cron.job SET database = current_database()
		WHERE database NOT IN (SELECT datname FROM pg_database)`)
	return err
}
