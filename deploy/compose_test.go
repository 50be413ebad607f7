package deploy

import (
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/storage"
)

// composeFile is the part of the compose specification compose.yaml uses.
type composeFile struct {
	Basalt   composeService            `yaml:"x-basalt"` // the nodes' shared definition
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
}

type composeService struct {
	Image       string            `yaml:"image"`
	Build       map[string]string `yaml:"build"`
	Command     []string          `yaml:"command"`
	Entrypoint  []string          `yaml:"entrypoint"`
	User        string            `yaml:"user"`
	Restart     string            `yaml:"restart"`
	DependsOn   any               `yaml:"depends_on"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Ports       []string          `yaml:"ports"`
	Healthcheck *struct {
		Test        []string `yaml:"test"`
		Interval    string   `yaml:"interval"`
		Timeout     string   `yaml:"timeout"`
		Retries     int      `yaml:"retries"`
		StartPeriod string   `yaml:"start_period"`
	} `yaml:"healthcheck"`
}

func readCompose(t *testing.T) composeFile {
	t.Helper()
	raw, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	// KnownFields: a misspelt key (enviroment:) fails here instead of being
	// ignored by this test and rejected by compose.
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	return c
}

// basaltNodes are the services that run basalt serve.
func basaltNodes(c composeFile) []string {
	var out []string
	for name, s := range c.Services {
		if s.Build["dockerfile"] == "deploy/Dockerfile" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// composeVar is a ${NAME}, ${NAME:-default} or ${NAME:?message} reference.
var composeVar = regexp.MustCompile(`\$\{([A-Z_0-9]+)(?::([-?])([^}]*))?\}`)

// interpolate resolves compose variables as with an empty environment:
// defaults apply, required ones become "required".
func interpolate(v string) string {
	return composeVar.ReplaceAllStringFunc(v, func(ref string) string {
		m := composeVar.FindStringSubmatch(ref)
		switch m[2] {
		case "-":
			return m[3]
		case "?":
			return "required"
		}
		return ""
	})
}

// hostOf is the host of a postgres:// or host:port value.
func hostOf(t *testing.T, v string) string {
	t.Helper()
	v = interpolate(v)
	if !strings.Contains(v, "://") {
		v = "tcp://" + v
	}
	u, err := url.Parse(v)
	if err != nil {
		t.Fatalf("%q: %v", v, err)
	}
	return u.Hostname()
}

func TestComposeNodesShareEverything(t *testing.T) {
	c := readCompose(t)
	nodes := basaltNodes(c)
	if len(nodes) != 2 {
		t.Fatalf("basalt nodes: %v, want two", nodes)
	}
	a, b := c.Services[nodes[0]], c.Services[nodes[1]]
	// Everything that makes a node interchangeable: one database, one key,
	// one object store, one replica.
	shared := []string{"DATABASE_URL", "BASALT_AUTHENTICATOR_PASSWORD", "BASALT_READ_REPLICA_URL", "JWT_SECRET",
		"API_EXTERNAL_URL", "STORAGE_BACKEND", "STORAGE_S3_ENDPOINT", "STORAGE_S3_BUCKET", "STORAGE_S3_REGION",
		"STORAGE_S3_ACCESS_KEY", "STORAGE_S3_SECRET_KEY", "STORAGE_S3_USE_SSL"}
	for _, k := range shared {
		if a.Environment[k] == "" || a.Environment[k] != b.Environment[k] {
			t.Errorf("%s: %q on %s, %q on %s; want one non-empty value", k, a.Environment[k], nodes[0], b.Environment[k], nodes[1])
		}
	}
	if !maps.Equal(a.Environment, b.Environment) {
		t.Errorf("the nodes' environments differ:\n%v\n%v", a.Environment, b.Environment)
	}
	env := a.Environment
	// What basalt serve would make of it, with JWT_SECRET given.
	getenv := func(k string) string {
		if k == "JWT_SECRET" {
			return strings.Repeat("s", 40)
		}
		return interpolate(env[k])
	}
	if cfg, err := config.Load(config.Serve, getenv); err != nil {
		t.Errorf("basalt serve would refuse the nodes' environment: %v", err)
	} else if u, err := cfg.ReplicaUserURL(); err != nil || !strings.Contains(u, "authenticator:authenticator-password@") {
		t.Errorf("replica reads would connect as %q (%v), want authenticator with its password", u, err)
	}
	if _, err := storage.ConfigFromEnv(getenv); err != nil {
		t.Errorf("storage: %v", err)
	}
	if env["STORAGE_BACKEND"] != "s3" {
		t.Errorf("STORAGE_BACKEND = %q: a file backend is per node, the other node could not read its objects", env["STORAGE_BACKEND"])
	}
	if s, ok := c.Services[hostOf(t, env["STORAGE_S3_ENDPOINT"])]; !ok || !strings.HasPrefix(s.Image, "minio/minio") {
		t.Errorf("STORAGE_S3_ENDPOINT %s is not the MinIO service", env["STORAGE_S3_ENDPOINT"])
	}
	s3 := c.Services[hostOf(t, env["STORAGE_S3_ENDPOINT"])]
	if s3.Environment["MINIO_ROOT_USER"] != env["STORAGE_S3_ACCESS_KEY"] || s3.Environment["MINIO_ROOT_PASSWORD"] != env["STORAGE_S3_SECRET_KEY"] {
		t.Error("the nodes' S3 credentials are not MinIO's")
	}

	// DATABASE_URL is the primary, with logical replication; the replica
	// URL is another service, a standby made from that primary.
	primaryName := hostOf(t, env["DATABASE_URL"])
	primary := c.Services[primaryName]
	if !slices.Contains(primary.Command, "wal_level=logical") {
		t.Errorf("%s runs without wal_level=logical: %v", primaryName, primary.Command)
	}
	replicaName := hostOf(t, env["BASALT_READ_REPLICA_URL"])
	if replicaName == primaryName {
		t.Fatalf("BASALT_READ_REPLICA_URL points at the primary")
	}
	replica, ok := c.Services[replicaName]
	if !ok {
		t.Fatalf("BASALT_READ_REPLICA_URL names no service: %s", replicaName)
	}
	script := mountedFile(t, replica, "/replica-entrypoint.sh")
	if !slices.Contains(replica.Entrypoint, "/replica-entrypoint.sh") ||
		!regexp.MustCompile(`pg_basebackup[^\n]*-R`).MatchString(script) || !strings.Contains(script, "-S basalt_replica") {
		t.Errorf("%s does not start as a streaming standby (pg_basebackup -R from the slot)", replicaName)
	}
	if replica.Environment["PRIMARY_HOST"] != primaryName || replica.Environment["PGPASSWORD"] != primary.Environment["REPLICATION_PASSWORD"] {
		t.Errorf("%s does not stream from %s with its replication password", replicaName, primaryName)
	}
	initScript := mountedFile(t, primary, "/docker-entrypoint-initdb.d/10-replication.sh")
	for _, want := range []string{"REPLICATION LOGIN", "pg_create_physical_replication_slot('basalt_replica')", "host replication replicator"} {
		if !strings.Contains(initScript, want) {
			t.Errorf("primary init script lacks %q", want)
		}
	}
}

// mountedFile reads the file of this directory that svc mounts at target.
func mountedFile(t *testing.T, svc composeService, target string) string {
	t.Helper()
	for _, v := range svc.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && parts[1] == target && strings.HasPrefix(parts[0], "./") {
			b, err := os.ReadFile(filepath.FromSlash(parts[0]))
			if err != nil {
				t.Fatalf("mounted file: %v", err)
			}
			return string(b)
		}
	}
	t.Errorf("nothing from this folder is mounted at %s", target)
	return ""
}

func TestComposeHealthchecks(t *testing.T) {
	c := readCompose(t)
	for name, s := range c.Services {
		if name == "lb" {
			continue // it checks the nodes itself
		}
		if s.Healthcheck == nil || len(s.Healthcheck.Test) == 0 {
			t.Errorf("service %s has no healthcheck", name)
		}
	}
	for _, n := range basaltNodes(c) {
		if hc := c.Services[n].Healthcheck; hc == nil || !strings.Contains(strings.Join(hc.Test, " "), "/health/ready") {
			t.Errorf("%s: the healthcheck must ask /health/ready", n)
		}
	}
}

// caddySite is one site block of a Caddyfile: its upstreams and options.
type caddySite struct {
	upstreams []string
	options   map[string]string
}

// parseCaddyfile reads the sites of the simple Caddyfile used here: an
// address line opening a block, one reverse_proxy with its options.
func parseCaddyfile(t *testing.T, name string) map[string]caddySite {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	sites := map[string]caddySite{}
	site := ""
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
		case len(f) == 2 && f[1] == "{" && strings.HasPrefix(f[0], ":"):
			site = f[0]
			sites[site] = caddySite{options: map[string]string{}}
		case site != "" && f[0] == "reverse_proxy":
			s := sites[site]
			s.upstreams = slices.DeleteFunc(f[1:], func(x string) bool { return x == "{" })
			sites[site] = s
		case site != "" && len(f) >= 2:
			sites[site].options[f[0]] = strings.Join(f[1:], " ")
		}
	}
	return sites
}

func TestComposeLoadBalancer(t *testing.T) {
	c := readCompose(t)
	lb, ok := c.Services["lb"]
	if !ok || !strings.HasPrefix(lb.Image, "caddy:") {
		t.Fatal("no Caddy service named lb")
	}
	if !slices.Contains(lb.Volumes, "./Caddyfile:/etc/caddy/Caddyfile:ro") {
		t.Errorf("lb does not mount ./Caddyfile: %v", lb.Volumes)
	}
	sites := parseCaddyfile(t, "Caddyfile")
	nodes := basaltNodes(c)
	for port, health := range map[string]string{"54321": "/health/ready", "3000": "/config.json"} {
		s, ok := sites[":"+port]
		if !ok {
			t.Errorf("Caddyfile has no site on :%s", port)
			continue
		}
		var want []string
		for _, n := range nodes {
			want = append(want, n+":"+port)
		}
		if !slices.Equal(s.upstreams, want) {
			t.Errorf(":%s proxies to %v, want both nodes %v", port, s.upstreams, want)
		}
		if s.options["health_uri"] != health {
			t.Errorf(":%s health_uri = %q, want %s", port, s.options["health_uri"], health)
		}
		if !slices.Contains(lb.Ports, port+":"+port) {
			t.Errorf("lb does not publish %s", port)
		}
	}
	// The nodes listen where the load balancer sends requests.
	for _, n := range nodes {
		if c.Services[n].Environment["BASALT_APP_PORT"] != "3000" {
			t.Errorf("%s: BASALT_APP_PORT = %q, want 3000 (the app site)", n, c.Services[n].Environment["BASALT_APP_PORT"])
		}
		if p := c.Services[n].Environment["BASALT_API_PORT"]; p != "" && p != "54321" {
			t.Errorf("%s: BASALT_API_PORT = %s", n, p)
		}
	}
}

// TestComposeDocumented: every variable the nodes are given, and every
// service, is described in README.md (auth variables in auth/README.md).
func TestComposeDocumented(t *testing.T) {
	c := readCompose(t)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	authReadme, err := os.ReadFile(filepath.Join("..", "auth", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name := range c.Services {
		if !strings.Contains(string(readme), "`"+name+"`") {
			t.Errorf("service %s is not described in README.md", name)
		}
	}
	for _, n := range basaltNodes(c) {
		for k, v := range c.Services[n].Environment {
			documented := strings.Contains(string(readme), "`"+k+"`")
			if short, ok := strings.CutPrefix(k, "BASALT_AUTH_"); ok {
				documented = documented || strings.Contains(string(authReadme), "`"+short+"`")
			}
			if !documented {
				t.Errorf("%s=%s is not documented", k, v)
			}
			// ${NAME...} in values are compose variables: documented too.
			for _, m := range composeVar.FindAllStringSubmatch(v, -1) {
				if !strings.Contains(string(readme), "`"+m[1]+"`") {
					t.Errorf("compose variable %s is not documented", m[1])
				}
			}
		}
	}
}
