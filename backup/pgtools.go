package backup

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/basaltdev/basalt/internal/lazy"
	"github.com/basaltdev/basalt/internal/pgcluster"
)

// clientProgram finds pg_dump or pg_restore: in binDir when given, else
// beside the initdb pgcluster finds for the embedded cluster (following a
// symlink to the real PostgreSQL folder), so dev dumps with its own
// server's version; else on PATH (a server machine may have only the
// client programs).
func clientProgram(binDir, name string) (string, error) {
	if binDir != "" {
		p := filepath.Join(binDir, name)
		if !isExecutable(p) {
			return "", fmt.Errorf("%s not found in %s: install the PostgreSQL client programs there (Debian: postgresql-client-15)", name, binDir)
		}
		return p, nil
	}
	var findErr error
	if d, err := pgcluster.FindBinDir(); err == nil {
		dirs := []string{d}
		if real, err := filepath.EvalSymlinks(filepath.Join(d, "initdb")); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
		for _, dir := range dirs {
			if p := filepath.Join(dir, name); isExecutable(p) {
				return p, nil
			}
		}
	} else {
		findErr = err
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	if findErr != nil {
		return "", fmt.Errorf("%s not found on PATH, and %w", name, findErr)
	}
	return "", fmt.Errorf("%s not found beside initdb or on PATH: install the PostgreSQL client programs (Debian: postgresql-client-15)", name)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// pgxOnlyParams are connection-string parameters pgx and pgxpool understand
// but libpq rejects as unknown.
var pgxOnlyParams = []string{"statement_cache_capacity", "description_cache_capacity", "default_query_exec_mode",
	"min_read_buffer_size"}

var dsnPoolParam = lazy.NewRegexp(`(?:^|\s)(?:pool_\w+|statement_cache_capacity|description_cache_capacity|default_query_exec_mode|min_read_buffer_size)\s*=\s*\S+`)

// libpqConn turns the connection string Basalt uses (pgx syntax) into one for
// libpq programs, and moves the password into PGPASSWORD so it does not show
// in the process list.
func libpqConn(conn string) (dsn string, env []string, err error) {
	if !strings.HasPrefix(conn, "postgres://") && !strings.HasPrefix(conn, "postgresql://") {
		// keyword=value form: only the pool settings need to go.
		return strings.TrimSpace(dsnPoolParam.ReplaceAllString(conn, "")), nil, nil
	}
	u, err := url.Parse(conn)
	if err != nil {
		return "", nil, fmt.Errorf("parse database url: %w", err)
	}
	q := u.Query()
	for k := range q {
		if strings.HasPrefix(k, "pool_") || slices.Contains(pgxOnlyParams, k) {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			env = append(env, "PGPASSWORD="+pw)
			u.User = url.User(u.User.Username())
		}
	}
	return u.String(), env, nil
}

// runProgram runs a PostgreSQL client program and returns its error output
// with the error, since that is where they explain what went wrong.
func runProgram(ctx context.Context, prog string, env []string, args ...string) error {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 4000 {
			msg = "…" + msg[len(msg)-4000:]
		}
		return fmt.Errorf("%s: %w\n%s", filepath.Base(prog), err, msg)
	}
	return nil
}
