package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/deno"
	"github.com/basaltdev/basalt/functions/deploy"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/telemetry"
)

const functionsUsage = `basalt functions: TypeScript edge functions (supabase/functions/<name>/index.ts)

  basalt functions new NAME             create supabase/functions/NAME/index.ts
  basalt functions serve [--port N] [--env-file F] [--no-verify-jwt]
                                        serve the folder's functions alone, reloading on change
  basalt functions deploy [NAME...] [--no-verify-jwt]
                                        upload to a running Basalt (every function without NAME)
  basalt functions list                 deployed functions and their versions
  basalt functions rollback NAME [--version N]
  basalt functions delete NAME
  basalt functions logs NAME [--limit N] [--request-id ID]

Deploy, list, rollback, delete and logs talk to --url with --key (the secret or service_role
key): BASALT_URL and BASALT_SECRET_KEY, else the running basalt dev of --data-dir.
The folder is BASALT_FUNCTIONS_DIR (default supabase/functions).
`

const secretsUsage = `basalt secrets: the functions' secrets, sealed in Postgres

  basalt secrets set NAME=VALUE... [--env-file F]
  basalt secrets list
  basalt secrets unset NAME...
`

// cmdFunctions runs `basalt functions ...`.
func cmdFunctions(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, functionsUsage)
		return usageError{"functions: a subcommand is needed"}
	}
	sub, rest := args[0], args[1:]
	dir := getenv("BASALT_FUNCTIONS_DIR")
	if dir == "" {
		dir = filepath.Join("supabase", "functions")
	}
	switch sub {
	case "new":
		return functionsNew(dir, rest, stdout)
	case "serve":
		return functionsServe(ctx, dir, rest, stdout, stderr, getenv)
	case "deploy", "list", "rollback", "delete", "logs":
		fs := newFlags("functions " + sub)
		target := adminFlags(fs)
		noVerify := fs.Bool("no-verify-jwt", false, "deploy with verify_jwt off")
		version := fs.Int("version", 0, "version to roll back to (default: the previous one)")
		limit := fs.Int("limit", 100, "log rows")
		requestID := fs.String("request-id", "", "only this request's log rows")
		if err := fs.Parse(interspersed(rest)); err != nil {
			return usageError{err.Error()}
		}
		c, err := target.client(getenv)
		if err != nil {
			return err
		}
		names := fs.Args()
		switch sub {
		case "deploy":
			return functionsDeploy(ctx, c, dir, names, *noVerify, stdout)
		case "list":
			return functionsList(ctx, c, stdout)
		}
		if len(names) != 1 {
			return usageError{"functions " + sub + ": one function name is needed"}
		}
		switch sub {
		case "rollback":
			var v deploy.Version
			body := fmt.Sprintf(`{"version":%d}`, *version)
			if err := c.do(ctx, "POST", "/functions/"+names[0]+"/rollback", "application/json", strings.NewReader(body), &v); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: version %d is active\n", v.Name, v.Version)
			return nil
		case "delete":
			if err := c.do(ctx, "DELETE", "/functions/"+names[0], "", nil, nil); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: deleted\n", names[0])
			return nil
		default:
			var es []deploy.LogEntry
			q := "?limit=" + strconv.Itoa(*limit)
			if *requestID != "" {
				q += "&request_id=" + *requestID
			}
			if err := c.do(ctx, "GET", "/functions/"+names[0]+"/logs"+q, "", nil, &es); err != nil {
				return err
			}
			for i := len(es) - 1; i >= 0; i-- {
				e := es[i]
				if e.Kind == "request" {
					fmt.Fprintf(stdout, "%s %s %s %s %d %.1fms %s %s\n", e.At.Format(time.RFC3339Nano), e.Version,
						deref(e.Method), deref(e.Path), derefInt(e.Status), derefFloat(e.DurationMS), e.RequestID, e.Message)
				} else {
					fmt.Fprintf(stdout, "%s %s %-5s %s %s\n", e.At.Format(time.RFC3339Nano), e.Version, e.Level, e.RequestID, e.Message)
				}
			}
			return nil
		}
	case "help", "-h", "--help":
		fmt.Fprint(stdout, functionsUsage)
		return nil
	}
	return usageError{fmt.Sprintf("functions: unknown subcommand %q", sub)}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefInt(i *int) int {
	if i == nil {
		return 0
	}
	return *i
}

func derefFloat(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// interspersed moves flags after positional arguments to the front, so
// `deploy hello --no-verify-jwt` reads as the Supabase CLI's does.
func interspersed(args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			flags = append(flags, a)
			// A flag whose value is the next argument.
			if !strings.Contains(a, "=") && i+1 < len(args) && !isBoolFlag(a) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(flags, pos...)
}

func isBoolFlag(a string) bool {
	switch strings.TrimLeft(a, "-") {
	case "no-verify-jwt", "json":
		return true
	}
	return false
}

// functionsNew scaffolds a function as the Supabase CLI does.
func functionsNew(dir string, args []string, stdout io.Writer) error {
	if len(args) != 1 || !deno.NameRE.MatchString(args[0]) {
		return usageError{"functions new: one valid name is needed (letters, digits, - and _)"}
	}
	name := args[0]
	fnDir := filepath.Join(dir, name)
	if _, err := os.Stat(fnDir); err == nil {
		return fmt.Errorf("functions new: %s already exists", fnDir)
	}
	if err := os.MkdirAll(fnDir, 0o755); err != nil {
		return err
	}
	index := fmt.Sprintf(`// Basalt runs this file on Deno as Supabase's edge runtime would.
// Call it: curl -i %[1]s/functions/v1/%[2]s -H "Authorization: Bearer <anon key>" -d '{"name":"Functions"}'

Deno.serve(async (req) => {
  const { name } = await req.json().catch(() => ({ name: "world" }));
  return Response.json({ message: %[3]s });
});
`, "http://127.0.0.1:54321", name, "`Hello ${name}!`")
	if err := os.WriteFile(filepath.Join(fnDir, "index.ts"), []byte(index), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(fnDir, "deno.json"), []byte("{\n  \"imports\": {}\n}\n"), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Created %s\n", filepath.Join(fnDir, "index.ts"))
	return nil
}

// functionsServe serves the folder's functions alone on a port, with the
// dev project's keys for verify_jwt (or --no-verify-jwt), variables from
// --env-file, reloading on every change, logs on the terminal.
func functionsServe(ctx context.Context, dir string, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlags("functions serve")
	port := fs.Int("port", 54329, "port to listen on (127.0.0.1)")
	envFile := fs.String("env-file", "", "variables for the functions (KEY=VALUE lines)")
	noVerify := fs.Bool("no-verify-jwt", false, "serve every function with verify_jwt off")
	dataDir := fs.String("data-dir", "", "the basalt dev data directory whose keys verify JWTs")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	log := slog.New(telemetry.NewLogHandler(slog.NewTextHandler(stderr, nil)))
	fcfg, err := functions.ConfigFromEnv(getenv)
	if err != nil {
		return err
	}
	cfg, err := config.Load(config.Dev, envWith(getenv, map[string]string{"BASALT_DATA_DIR": *dataDir}))
	if err != nil {
		return err
	}
	keys, _, err := jwt.LoadOrCreate(filepath.Join(cfg.DataDir, "keys.json"), time.Now())
	if err != nil {
		return err
	}
	env := map[string]string{"SUPABASE_URL": "http://127.0.0.1:54321", "SUPABASE_ANON_KEY": keys.AnonKey,
		"SUPABASE_SERVICE_ROLE_KEY": keys.ServiceRoleKey}
	if st, err := readState(cfg.DataDir); err == nil {
		env["SUPABASE_URL"], env["SUPABASE_DB_URL"] = st.APIURL, st.DBURL
	}
	if *envFile != "" {
		vars, err := readEnvFile(*envFile)
		if err != nil {
			return err
		}
		for k, v := range vars {
			env[k] = v
		}
	}
	bin, err := deno.FindBin(getenv)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "basalt-functions-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	rt, err := deno.New(deno.Config{DenoBin: bin, WorkDir: work, CacheDir: filepath.Join(cfg.DataDir, "deno"),
		MemoryMB: fcfg.TypeScript.MemoryMB, CPUBudget: fcfg.TypeScript.CPUBudget, IdleTimeout: fcfg.TypeScript.IdleTimeout,
		Log: log, Logs: terminalLogs{w: stdout}, Env: func() map[string]string { return env }})
	if err != nil {
		return err
	}
	defer rt.Close()
	stop := make(chan struct{})
	defer close(stop)
	src, err := deno.NewLocalSource(dir, 500*time.Millisecond, stop)
	if err != nil {
		return err
	}
	fcfg.Keys, fcfg.Log, fcfg.Deno, fcfg.Sources = keys, log, rt, []functions.Source{src}
	if *noVerify {
		fcfg.NoVerifyJWT = src.Names()
	}
	svc, err := functions.New(fcfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/functions/v1/", http.StripPrefix("/functions/v1", svc))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "Serving %s at http://%s/functions/v1/<name>: %s\n", dir, ln.Addr(), strings.Join(src.Names(), ", "))
	ctx, cancel := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer cancel()
	go func() { <-ctx.Done(); _ = srv.Shutdown(context.Background()) }()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// terminalLogs prints function logs as they come.
type terminalLogs struct{ w io.Writer }

func (t terminalLogs) Line(fn, _ string, l deno.LogLine) {
	fmt.Fprintf(t.w, "[%s] %s %s\n", fn, l.Level, l.Message)
}

func (t terminalLogs) Invocation(fn, _ string, inv deno.Invocation) {
	fmt.Fprintf(t.w, "[%s] %s %s → %d in %s %s\n", fn, inv.Method, inv.Path, inv.Status, inv.Duration.Round(time.Millisecond), inv.Error)
}

// readEnvFile reads KEY=VALUE lines (# comments, optional quotes).
func readEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%s:%d: not KEY=VALUE", path, n)
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, sc.Err()
}

func functionsDeploy(ctx context.Context, c *adminClient, dir string, names []string, noVerify bool, stdout io.Writer) error {
	if len(names) == 0 {
		specs, err := deno.ReadProject(dir)
		if err != nil {
			return err
		}
		for _, s := range specs {
			names = append(names, s.Name)
		}
		if len(names) == 0 {
			return fmt.Errorf("functions deploy: no function in %s", dir)
		}
	}
	specs, err := deno.ReadProject(dir)
	if err != nil {
		return err
	}
	verify := map[string]bool{}
	for _, s := range specs {
		verify[s.Name] = s.VerifyJWT
	}
	for _, name := range names {
		bundle, err := deploy.Build(dir, name)
		if err != nil {
			return err
		}
		v := verify[name] && !noVerify
		var got deploy.Version
		path := fmt.Sprintf("/functions/%s?verify_jwt=%t", name, v)
		if err := c.do(ctx, "PUT", path, "application/gzip", bytes.NewReader(bundle), &got); err != nil {
			return fmt.Errorf("deploy %s: %w", name, err)
		}
		fmt.Fprintf(stdout, "Deployed %s version %d (%d bytes, verify_jwt %t)\n", got.Name, got.Version, len(bundle), got.VerifyJWT)
	}
	return nil
}

func functionsList(ctx context.Context, c *adminClient, stdout io.Writer) error {
	var vs []deploy.Version
	if err := c.do(ctx, "GET", "/functions", "", nil, &vs); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tACTIVE\tVERIFY_JWT\tDEPLOYED\tSHA256")
	for _, v := range vs {
		active := ""
		if v.Active {
			active = "*"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%t\t%s\t%s\n", v.Name, v.Version, active, v.VerifyJWT, v.CreatedAt.Format(time.RFC3339), v.SHA256[:12])
	}
	return tw.Flush()
}

// cmdSecrets runs `basalt secrets ...`.
func cmdSecrets(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, secretsUsage)
		return usageError{"secrets: a subcommand is needed"}
	}
	sub := args[0]
	fs := newFlags("secrets " + sub)
	target := adminFlags(fs)
	envFile := fs.String("env-file", "", "KEY=VALUE lines to set")
	if err := fs.Parse(interspersed(args[1:])); err != nil {
		return usageError{err.Error()}
	}
	c, err := target.client(getenv)
	if err != nil {
		return err
	}
	switch sub {
	case "set":
		type pair struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		}
		var pairs []pair
		if *envFile != "" {
			vars, err := readEnvFile(*envFile)
			if err != nil {
				return err
			}
			for k, v := range vars {
				pairs = append(pairs, pair{k, v})
			}
		}
		for _, a := range fs.Args() {
			k, v, ok := strings.Cut(a, "=")
			if !ok {
				return usageError{fmt.Sprintf("secrets set: %q is not NAME=VALUE", a)}
			}
			pairs = append(pairs, pair{k, v})
		}
		if len(pairs) == 0 {
			return usageError{"secrets set: NAME=VALUE or --env-file is needed"}
		}
		b, _ := json.Marshal(pairs)
		if err := c.do(ctx, "POST", "/secrets", "application/json", bytes.NewReader(b), nil); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Set %d secret(s)\n", len(pairs))
		return nil
	case "list":
		var ss []deploy.SecretInfo
		if err := c.do(ctx, "GET", "/secrets", "", nil, &ss); err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tDIGEST\tUPDATED")
		for _, s := range ss {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Digest, s.UpdatedAt.Format(time.RFC3339))
		}
		return tw.Flush()
	case "unset":
		if len(fs.Args()) == 0 {
			return usageError{"secrets unset: NAME... is needed"}
		}
		b, _ := json.Marshal(fs.Args())
		if err := c.do(ctx, "DELETE", "/secrets", "application/json", bytes.NewReader(b), nil); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Unset %s\n", strings.Join(fs.Args(), ", "))
		return nil
	}
	return usageError{fmt.Sprintf("secrets: unknown subcommand %q", sub)}
}

// adminTarget is where the admin commands send their calls.
type adminTarget struct{ url, key, dataDir *string }

func adminFlags(fs interface {
	String(name, value, usage string) *string
}) adminTarget {
	return adminTarget{
		url:     fs.String("url", "", "Basalt API URL (default BASALT_URL, else the running basalt dev)"),
		key:     fs.String("key", "", "secret or service_role key (default BASALT_SECRET_KEY, else the running basalt dev's)"),
		dataDir: fs.String("data-dir", "", "the basalt dev data directory"),
	}
}

func (t adminTarget) client(getenv func(string) string) (*adminClient, error) {
	url, key := *t.url, *t.key
	if url == "" {
		url = getenv("BASALT_URL")
	}
	if key == "" {
		key = getenv("BASALT_SECRET_KEY")
	}
	if url == "" || key == "" {
		cfg, err := config.Load(config.Dev, envWith(getenv, map[string]string{"BASALT_DATA_DIR": *t.dataDir}))
		if err != nil {
			return nil, err
		}
		st, err := readState(cfg.DataDir)
		if err != nil {
			return nil, fmt.Errorf("no --url/--key (BASALT_URL/BASALT_SECRET_KEY) and no running basalt dev: %w", err)
		}
		if url == "" {
			url = st.APIURL
		}
		if key == "" {
			key = st.ServiceRoleKey
		}
	}
	return &adminClient{base: strings.TrimRight(url, "/") + "/functions/v1/_admin", key: key,
		http: &http.Client{Timeout: 2 * time.Minute}}, nil
}

// adminClient calls the functions admin API.
type adminClient struct {
	base, key string
	http      *http.Client
}

func (c *adminClient) do(ctx context.Context, method, path, contentType string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("apikey", c.key)
	if !strings.HasPrefix(c.key, "sb_") {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode >= 300 {
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(b, &e) == nil && e.Message != "" {
			return fmt.Errorf("%s (%d)", e.Message, resp.StatusCode)
		}
		return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}
