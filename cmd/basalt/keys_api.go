package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/apikeys"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/sql/platform"
)

const keysAPIUsage = `Usage:
  basalt keys api list [--json]                     the project's publishable and secret keys (never the keys themselves)
  basalt keys api create publishable|secret [--name NAME] [--json]
                                                    a new key, valid at once on every node; printed this once
  basalt keys api rotate publishable|secret NAME|ID a new key in place of that one, which is refused from then on
  basalt keys api revoke publishable|secret NAME|ID refuse that key on every node

The database is DATABASE_URL, else the running "basalt dev" (--data-dir DIR).
`

// keysAPI runs `basalt keys api …` against the database.
func keysAPI(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	fs := newFlags("keys api")
	asJSON := fs.Bool("json", false, "print JSON")
	name := fs.String("name", "", "name of a new key")
	dataDir := fs.String("data-dir", "", "data directory")
	if err := fs.Parse(interspersed(args)); err != nil {
		return usageError{err.Error()}
	}
	sub, rest := fs.Arg(0), fs.Args()
	if len(rest) > 0 {
		rest = rest[1:]
	}
	var kind apikeys.Kind
	switch sub {
	case "help":
		fmt.Fprint(stdout, keysAPIUsage)
		return nil
	case "list":
	case "create", "rotate", "revoke":
		if len(rest) == 0 || (rest[0] != string(apikeys.Publishable) && rest[0] != string(apikeys.Secret)) {
			fmt.Fprint(stdout, keysAPIUsage)
			return usageError{"keys api " + sub + ": publishable or secret?"}
		}
		kind, rest = apikeys.Kind(rest[0]), rest[1:]
		if (sub == "create") != (len(rest) == 0) {
			fmt.Fprint(stdout, keysAPIUsage)
			return usageError{"keys api " + sub + ": wrong number of arguments"}
		}
	default:
		fmt.Fprint(stdout, keysAPIUsage)
		return usageError{fmt.Sprintf("unknown keys api command %q", sub)}
	}
	cfg, err := config.Load(config.Dev, envWith(getenv, map[string]string{"BASALT_DATA_DIR": *dataDir}))
	if err != nil {
		return err
	}
	log := newLogger(io.Discard, "error")
	return withAdminPool(ctx, cfg, log, func(db *pgxpool.Pool) error {
		// The table comes with the platform migrations: a database that has
		// not run them yet gets them first.
		if _, err := migrate.Up(ctx, db, nil, platform.Source(cfg.PublicDefaultGrants)); err != nil {
			return err
		}
		var key string
		var k apikeys.Key
		var err error
		switch sub {
		case "list":
			keys, err := apikeys.List(ctx, db)
			if err != nil {
				return err
			}
			return printAPIKeys(stdout, keys, *asJSON)
		case "create":
			n := *name
			if n == "" {
				n = string(kind)
			}
			key, k, err = apikeys.Create(ctx, db, kind, n)
		case "rotate":
			key, k, err = apikeys.Rotate(ctx, db, kind, rest[0])
		case "revoke":
			k, err = apikeys.Revoke(ctx, db, kind, rest[0])
		}
		if err != nil {
			return err
		}
		if *asJSON {
			out := struct {
				apikeys.Key
				APIKey string `json:"api_key,omitempty"`
			}{k, key}
			return json.NewEncoder(stdout).Encode(out)
		}
		if key != "" {
			fmt.Fprintf(stdout, "%s key %q (%s): %s\nIt is not shown again.\n", k.Kind, k.Name, k.ID, key)
			return nil
		}
		fmt.Fprintf(stdout, "revoked %s key %q (%s): every node refuses it\n", k.Kind, k.Name, k.ID)
		return nil
	})
}

func printAPIKeys(w io.Writer, keys []apikeys.Key, asJSON bool) error {
	if asJSON {
		if keys == nil {
			keys = []apikeys.Key{}
		}
		return json.NewEncoder(w).Encode(keys)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TYPE\tNAME\tKEY\tCREATED\tREVOKED\tID")
	for _, k := range keys {
		revoked := "-"
		if k.RevokedAt != nil {
			revoked = k.RevokedAt.UTC().Format("2006-01-02 15:04:05Z")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s…\t%s\t%s\t%s\n", k.Kind, k.Name, k.Prefix, k.CreatedAt.UTC().Format("2006-01-02 15:04:05Z"), revoked, k.ID)
	}
	return tw.Flush()
}

// apiKeyStore records the sb_ keys the configuration names (keys.json,
// PUBLISHABLE_KEY, SECRET_KEY) in the database as the "default" keys, unless
// they are there already (a revoked one stays revoked), and follows the
// project's keys there until stop is called.
func apiKeyStore(ctx context.Context, admin *pgxpool.Pool, listener *pg.Listener, keys *jwt.Keys, log *slog.Logger) (*apikeys.Store, func(), error) {
	for _, key := range []string{keys.PublishableKey, keys.SecretKey} {
		if key == "" {
			continue
		}
		valid, err := apikeys.Import(ctx, admin, key, "default")
		if err != nil {
			return nil, func() {}, err
		}
		if !valid {
			log.Warn("the configured key was revoked: every request with it is refused", "key", apikeys.Shown(key))
		}
	}
	st, err := apikeys.NewStore(ctx, admin, log)
	if err != nil {
		return nil, func() {}, err
	}
	st.Listener = listener
	follow, stop := context.WithCancel(context.Background())
	go st.Run(follow)
	return st, stop, nil
}
