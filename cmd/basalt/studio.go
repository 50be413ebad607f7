package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/term"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/studio"
)

// listenStudio opens Studio's port when Studio is on (`basalt dev`: unless
// BASALT_STUDIO_ENABLED=false; `basalt serve`: only when configured). It
// answers "starting" until mountStudio hands it the service.
func (s *stack) listenStudio(mode config.Mode, getenv func(string) string) error {
	cfg, err := studio.ConfigFromEnv(getenv, mode == config.Dev)
	if err != nil || !cfg.Enabled {
		return err
	}
	s.studio, err = listen(cfg.Host, cfg.Port)
	if err != nil && mode == config.Dev && getenv("BASALT_STUDIO_PORT") == "" {
		// Another dev (or anything) holds the default port: Studio takes a
		// free one, which the banner and `basalt status` name.
		s.log.Warn("Studio's default port is taken; Studio listens on another", "port", cfg.Port, "err", err)
		s.studio, err = listen(cfg.Host, 0)
	}
	if err != nil {
		return fmt.Errorf("studio: %w", err)
	}
	s.studioCfg = cfg
	s.studioFront = gateway.NewHandoff(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Basalt Studio is starting", http.StatusServiceUnavailable)
	}))
	return nil
}

// mountStudio builds Studio over the pools, with the gateway to call in
// process and the registry /metrics serves.
func (s *stack) mountStudio(ctx context.Context, mode config.Mode, p pools, reg *prometheus.Registry, getenv func(string) string) error {
	if s.studio == nil {
		return nil
	}
	// The object store is the storage service's: under dev, its default
	// folder in the data dir unless the environment names one.
	storageEnv := getenv
	if mode == config.Dev {
		dir := devDefaults(deps{Config: s.cfg})["STORAGE_FILE_DIR"]
		storageEnv = func(k string) string {
			if v := getenv(k); v != "" || k != "STORAGE_FILE_DIR" {
				return v
			}
			return dir
		}
	}
	backups, err := newStudioBackups(ctx, p.admin, s.cfg.DataDir, storageEnv, s.log)
	if err != nil {
		return fmt.Errorf("backups: %w", err)
	}
	svc, err := studio.New(ctx, s.studioCfg, studio.Deps{
		Admin: p.admin, User: p.user, Keys: s.keys, API: s.handler, Metrics: reg,
		ProjectURL: s.cfg.PublicURL, Log: s.log, Migrations: migrationSources(s.cfg.SQLDir, s.cfg.PublicDefaultGrants), Backups: backups,
	})
	if err != nil {
		return err
	}
	s.studioFront.Set(svc)
	return nil
}

// studioURL is Studio's address as the banner prints it ("" when off).
func (s *stack) studioURL() string {
	if s.studio == nil {
		return ""
	}
	if s.studioCfg.PublicURL != "" {
		return s.studioCfg.PublicURL
	}
	return fmt.Sprintf("http://127.0.0.1:%d", s.studio.Addr().(*net.TCPAddr).Port)
}

// cmdStudio manages Studio's operator accounts:
//
//	basalt studio user add EMAIL      (password from stdin, or a prompt)
//	basalt studio user passwd EMAIL
//	basalt studio user remove EMAIL
//	basalt studio user list
//
// on DATABASE_URL, else on the embedded cluster of the data dir.
func cmdStudio(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlags("studio")
	dataDir := fs.String("data-dir", "", "data directory")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	a := fs.Args()
	if len(a) < 2 || a[0] != "user" {
		return usageError{"want: basalt studio user add|passwd|remove EMAIL, or basalt studio user list"}
	}
	verb := a[1]
	email := ""
	if verb != "list" {
		if len(a) != 3 {
			return usageError{fmt.Sprintf("basalt studio user %s takes one EMAIL", verb)}
		}
		email = a[2]
	}
	cfg, err := config.Load(config.Dev, envWith(getenv, map[string]string{"BASALT_DATA_DIR": *dataDir}))
	if err != nil {
		return err
	}
	err = withAdminPool(ctx, cfg, newLogger(stderr, cfg.LogLevel), func(pool *pgxpool.Pool) error {
		switch verb {
		case "add", "passwd":
			password, err := readPassword(stdin, stderr)
			if err != nil {
				return err
			}
			if verb == "add" {
				op, err := studio.AddOperator(ctx, pool, email, password)
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "operator %s added\n", op.Email)
				return nil
			}
			if err := studio.SetOperatorPassword(ctx, pool, email, password); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "password of %s changed; their sessions are closed\n", strings.ToLower(email))
			return nil
		case "remove":
			if err := studio.RemoveOperator(ctx, pool, email); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "operator %s removed\n", strings.ToLower(email))
			return nil
		case "list":
			ops, err := studio.ListOperators(ctx, pool)
			if err != nil {
				return err
			}
			for _, op := range ops {
				fmt.Fprintln(stdout, op.Email)
			}
			return nil
		}
		return usageError{fmt.Sprintf("unknown studio user command %q (want add, passwd, remove or list)", verb)}
	})
	if pg.Is(err, "42P01") {
		return fmt.Errorf("%w: the database has no Studio tables yet; run `basalt migrate up` first", err)
	}
	return err
}

// readPassword reads the password: with a terminal, typed twice without
// echo; otherwise the first line of stdin.
func readPassword(stdin io.Reader, stderr io.Writer) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(stderr, "Password: ")
		p1, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", err
		}
		fmt.Fprint(stderr, "Password again: ")
		p2, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", err
		}
		if string(p1) != string(p2) {
			return "", errors.New("the passwords differ")
		}
		return string(p1), nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("no password on stdin")
	}
	return line, nil
}
