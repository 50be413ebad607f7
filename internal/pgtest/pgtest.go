// Package pgtest gives tests a real PostgreSQL: one throwaway cluster per test
// package (initdb with fsync off, unix socket only, run as an unprivileged
// user when the tests run as root) and a fresh database per test, cloned from
// a template that has the migrations applied, so tests can run in parallel.
//
// Use it from TestMain:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// then db := pgtest.NewDB(t) in each test. db.User connects as the
// non-superuser login role "authenticator", so grants and RLS really apply;
// db.Admin connects as the cluster's owner, for fixtures and service stores.
package pgtest

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/sql/platform"
)

const templateDB = "basalt_template"

// Option changes what Main prepares.
type Option func(*options)

type options struct {
	app      bool
	cron     bool
	extra    []migrate.Source
	settings map[string]string
}

// WithApp also applies the app migrations in sql/app to the template.
func WithApp() Option { return func(o *options) { o.app = true } }

// WithCron starts the cluster with pg_cron preloaded (when the server has
// it) for one database, CronDatabase, that CronDB hands out.
func WithCron() Option { return func(o *options) { o.cron = true } }

// CronDatabase is the one database pg_cron runs jobs in, under WithCron.
const CronDatabase = "basalt_cron"

// WithSettings adds postgresql.conf settings to the cluster's.
func WithSettings(settings map[string]string) Option {
	return func(o *options) {
		if o.settings == nil {
			o.settings = map[string]string{}
		}
		for k, v := range settings {
			o.settings[k] = v
		}
	}
}

// WithSource also applies src after the platform (and app) migrations.
func WithSource(src migrate.Source) Option {
	return func(o *options) { o.extra = append(o.extra, src) }
}

var (
	mu      sync.Mutex // serialises CREATE DATABASE from the template
	cluster *pgcluster.Cluster
	// stopCluster stops the cluster and removes its folder.
	stopCluster func()
	startErr    error
	startOnce   sync.Once
	opts        options
	counter     atomic.Int64
	skipMsg     string
)

// Main runs the package's tests with a cluster started on first use and
// stopped afterwards, then exits with the tests' code.
func Main(m *testing.M, o ...Option) {
	for _, f := range o {
		f(&opts)
	}
	code := m.Run()
	if stopCluster != nil {
		stopCluster()
	}
	os.Exit(code)
}

func start() {
	// Missing binaries skip the tests unless PGTEST_REQUIRED says otherwise.
	if _, err := pgcluster.FindBinDir(); err != nil {
		if os.Getenv("PGTEST_REQUIRED") == "" {
			skipMsg = err.Error()
			return
		}
		startErr = err
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A short prefix: the socket path must stay under ~100 bytes.
	settings := map[string]string{
		"max_connections":           "300",
		"shared_buffers":            "64MB",
		"max_locks_per_transaction": "256",
	}
	for k, v := range opts.settings {
		settings[k] = v
	}
	var cronDB string
	if opts.cron {
		cronDB = CronDatabase
	}
	c, stop, err := pgcluster.StartTempCron(ctx, "pgt", settings, cronDB)
	if err != nil {
		startErr = fmt.Errorf("pgtest: %w", err)
		return
	}
	stopCluster = stop
	cluster = c
	startErr = prepareTemplate(ctx, c)
}

func prepareTemplate(ctx context.Context, c *pgcluster.Cluster) error {
	admin, err := pg.Connect(ctx, c.SocketURL("postgres", "postgres"), nil)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+templateDB); err != nil {
		admin.Close()
		return fmt.Errorf("pgtest: create template: %w", err)
	}
	admin.Close()
	db, err := pg.Connect(ctx, c.SocketURL("postgres", templateDB), nil)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer db.Close()
	sources := []migrate.Source{platform.Source(false)}
	if opts.app {
		root, err := ModuleRoot()
		if err != nil {
			return err
		}
		sources = append(sources, migrate.Source{Name: "app", FS: os.DirFS(filepath.Join(root, "sql", "app"))})
	}
	sources = append(sources, opts.extra...)
	if _, err := migrate.Up(ctx, db, nil, sources...); err != nil {
		return fmt.Errorf("pgtest: migrate template: %w", err)
	}
	return nil
}

// ModuleRoot walks up from the working directory to the folder with go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("pgtest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// DB is one test's database.
type DB struct {
	Name     string
	AdminURL string        // as the cluster owner (superuser)
	UserURL  string        // as authenticator (NOINHERIT, can SET ROLE anon/authenticated/service_role)
	Admin    *pgxpool.Pool // pool for AdminURL
	User     *pgxpool.Pool // pool for UserURL
}

func ensure(t testing.TB) *pgcluster.Cluster {
	t.Helper()
	startOnce.Do(start)
	if skipMsg != "" {
		t.Skip("pgtest: " + skipMsg + " (set PGTEST_REQUIRED=1 to fail instead)")
	}
	if startErr != nil {
		t.Fatal(startErr)
	}
	return cluster
}

// NewDB creates a database cloned from the migrated template, with pools
// closed and the database dropped when the test ends.
func NewDB(t testing.TB) *DB {
	t.Helper()
	return newDB(t, templateDB)
}

// NewEmptyDB creates a database with no migrations applied (from template0).
func NewEmptyDB(t testing.TB) *DB {
	t.Helper()
	return newDB(t, "template0")
}

func newDB(t testing.TB, template string) *DB {
	t.Helper()
	c := ensure(t)
	name := fmt.Sprintf("t_%d_%d", os.Getpid(), counter.Add(1))
	ctx := context.Background()
	mu.Lock()
	err := func() error {
		admin, err := pg.Connect(ctx, c.SocketURL("postgres", "postgres"), nil)
		if err != nil {
			return err
		}
		defer admin.Close()
		_, err = admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, template))
		return err
	}()
	mu.Unlock()
	if err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	// Registered first, so it runs after the pools have closed.
	t.Cleanup(func() {
		if admin, err := pg.Connect(ctx, c.SocketURL("postgres", "postgres"), nil); err == nil {
			_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			admin.Close()
		}
	})
	return connect(t, c, name)
}

// connect opens the admin and user pools of database name, closed when the
// test ends.
func connect(t testing.TB, c *pgcluster.Cluster, name string) *DB {
	t.Helper()
	ctx := context.Background()
	db := &DB{Name: name, AdminURL: c.SocketURL("postgres", name), UserURL: c.SocketURL("authenticator", name)}
	var err error
	if db.Admin, err = pg.Connect(ctx, db.AdminURL, nil); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	if db.User, err = pg.Connect(ctx, db.UserURL, nil); err != nil {
		db.Admin.Close()
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		db.User.Close()
		db.Admin.Close()
	})
	return db
}

var (
	cronOnce sync.Once
	cronErr  error
	cronSkip string
)

// CronDB returns the database pg_cron runs jobs in (Main needs WithCron),
// with the migrations applied and pg_cron created. pg_cron serves one
// database per cluster, so every test of the package shares it: name jobs
// after the test and unschedule them. The pools close when the test ends.
// Without pg_cron on the server the test is skipped, unless
// PGTEST_REQUIRED is set.
func CronDB(t testing.TB) *DB {
	t.Helper()
	c := ensure(t)
	if !opts.cron {
		t.Fatal("pgtest: CronDB needs pgtest.Main(m, pgtest.WithCron())")
	}
	cronOnce.Do(func() {
		if !c.HasLibrary("pg_cron") {
			cronSkip = "this PostgreSQL has no pg_cron (Debian: apt-get install postgresql-15-cron)"
			return
		}
		ctx := context.Background()
		mu.Lock()
		defer mu.Unlock()
		admin, err := pg.Connect(ctx, c.SocketURL("postgres", "postgres"), nil)
		if err != nil {
			cronErr = err
			return
		}
		defer admin.Close()
		if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", CronDatabase, templateDB)); err != nil {
			cronErr = fmt.Errorf("pgtest: create %s: %w", CronDatabase, err)
			return
		}
		db, err := pg.Connect(ctx, c.SocketURL("postgres", CronDatabase), nil)
		if err != nil {
			cronErr = err
			return
		}
		defer db.Close()
		if _, err := db.Exec(ctx, "SELECT basalt.enable_cron()"); err != nil {
			cronErr = fmt.Errorf("pgtest: enable pg_cron: %w", err)
		}
	})
	if cronSkip != "" {
		if os.Getenv("PGTEST_REQUIRED") != "" {
			t.Fatal("pgtest: " + cronSkip)
		}
		t.Skip("pgtest: " + cronSkip + " (set PGTEST_REQUIRED=1 to fail instead)")
	}
	if cronErr != nil {
		t.Fatal(cronErr)
	}
	return connect(t, c, CronDatabase)
}

// Cluster returns the package's cluster (starting it if needed), for tests
// that need raw access, such as URLs for other roles.
func Cluster(t testing.TB) *pgcluster.Cluster {
	t.Helper()
	return ensure(t)
}

// DirFS is os.DirFS relative to the module root, for WithSource.
func DirFS(rel string) fs.FS {
	root, err := ModuleRoot()
	if err != nil {
		panic(err)
	}
	return os.DirFS(filepath.Join(root, rel))
}

// PreparedRuns counts the connection's prepared statements whose text
// contains like (a LIKE pattern without the surrounding %) and how many
// times they ran: the check that a statement keeps its plan per role.
func PreparedRuns(t testing.TB, conn interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, like string) (statements, runs int) {
	t.Helper()
	if err := conn.QueryRow(context.Background(), `SELECT count(*), coalesce(sum(generic_plans + custom_plans), 0)
		FROM pg_prepared_statements WHERE statement LIKE '%' || $1 || '%' AND statement NOT LIKE '%pg_prepared_statements%'`,
		like).Scan(&statements, &runs); err != nil {
		t.Fatal(err)
	}
	return statements, runs
}
