// Command basalt is the Basalt server: a Supabase-compatible backend in one
// binary. `basalt dev` runs everything locally with an embedded PostgreSQL;
// `basalt serve` runs against an existing database; `basalt migrate`,
// `basalt status`, `basalt keys` and `basalt version` are the tools around
// them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

const usage = `Basalt: a Supabase-compatible backend in one binary.

Usage:
  basalt dev [--data-dir DIR]          run everything locally (embedded PostgreSQL, migrations, seed, API, app)
  basalt serve                         run the API against DATABASE_URL (configuration from the environment)
  basalt status [--json] [--data-dir]  show URLs and keys of the running "basalt dev"
  basalt migrate up|down|status|diff [--data-dir DIR]
                                       apply, undo the last, list, or compare migrations with the
                                       database (DATABASE_URL, else the embedded cluster)
  basalt migrate new NAME              create sql/app/NNNN_name.sql
  basalt keys [--json] [rotate]        print the project keys (rotate: generate new ones)
  basalt studio user add|passwd|remove EMAIL
                                       manage Studio's operator accounts (password from stdin or a prompt)
  basalt studio user list              list them
  basalt storage gc [--data-dir DIR]   delete stored bytes no object points to (crash leftovers)
  basalt backup [--out DIR|FILE.tar[.gz]] [--data-dir DIR]
                                       write a consistent backup: database dump, storage objects, manifest
  basalt restore --from DIR|FILE [--data-dir DIR]
                                       restore a backup into an empty database and object store
  basalt gen types typescript [--schema NAME]... [--from-migrations]
                                       print the supabase-js Database type of the schema
  basalt functions new|serve|deploy|list|rollback|delete|logs
                                       TypeScript edge functions on Deno (basalt functions help)
  basalt secrets set|list|unset        the functions' secrets, sealed in Postgres
  basalt version                       print the version

Environment variables are listed in deploy/README.md.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprint(os.Stderr, usage)
			fmt.Fprintln(os.Stderr)
		}
		fmt.Fprintln(os.Stderr, "basalt:", err)
		os.Exit(1)
	}
}

// usageError marks a wrong command line.
type usageError struct{ msg string }

// Error returns the message.
func (e usageError) Error() string { return e.msg }

// run dispatches a command line. It is main without the process exit, so
// tests can drive it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		return usageError{"no command given"}
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "dev":
		return cmdDev(ctx, rest, stdout, stderr, getenv)
	case "serve":
		return cmdServe(ctx, rest, stdout, stderr, getenv)
	case "status":
		return cmdStatus(rest, stdout, getenv)
	case "migrate":
		return cmdMigrate(ctx, rest, stdout, stderr, getenv)
	case "keys":
		return cmdKeys(rest, stdout, getenv)
	case "storage":
		return cmdStorage(ctx, rest, stdout, stderr, getenv)
	case "studio":
		return cmdStudio(ctx, rest, os.Stdin, stdout, stderr, getenv)
	case "backup", "restore":
		return cmdBackupRestore(ctx, cmd, rest, stdout, stderr, getenv)
	case "gen":
		return cmdGen(ctx, rest, stdout, stderr, getenv)
	case "functions":
		return cmdFunctions(ctx, rest, stdout, stderr, getenv)
	case "secrets":
		return cmdSecrets(ctx, rest, stdout, getenv)
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "basalt", buildVersion())
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown command %q", cmd)}
}

// buildVersion is the -ldflags version, else the module version or VCS
// revision Go recorded in the binary.
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel-" + s.Value[:12]
		}
	}
	return "devel"
}

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// envWith overlays flag values on getenv, so flags and variables share one
// code path through config.Load.
func envWith(getenv func(string) string, over map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := over[k]; ok && v != "" {
			return v
		}
		return getenv(k)
	}
}
