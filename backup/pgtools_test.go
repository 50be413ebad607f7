package backup

import (
	"slices"
	"testing"
)

// TestLibpqConn: pgx-only settings (pool sizes in DATABASE_URL) would make
// pg_dump refuse the URL, and a password on its command line would show in
// the process list.
func TestLibpqConn(t *testing.T) {
	for _, c := range []struct{ in, dsn, env string }{
		{"postgres://basalt:s3cret@db:5432/app?sslmode=require&pool_max_conns=20&statement_cache_capacity=0",
			"postgres://basalt@db:5432/app?sslmode=require", "PGPASSWORD=s3cret"},
		{"postgres://postgres@/postgres?host=/run/pg&port=54322&sslmode=disable",
			"postgres://postgres@/postgres?host=%2Frun%2Fpg&port=54322&sslmode=disable", ""},
		{"host=db user=basalt pool_max_conns=5 dbname=app", "host=db user=basalt dbname=app", ""},
	} {
		dsn, env, err := libpqConn(c.in)
		if err != nil || dsn != c.dsn || (c.env == "") != (len(env) == 0) || (c.env != "" && !slices.Contains(env, c.env)) {
			t.Errorf("libpqConn(%q) = %q %v %v, want %q %q", c.in, dsn, env, err, c.dsn, c.env)
		}
	}
}
