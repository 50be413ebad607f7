package deploy

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/rest"
	"github.com/basaltdev/basalt/storage"
)

// k8sDoc is one manifest; Spec is decoded per kind.
type k8sDoc struct {
	file       string
	Kind       string `yaml:"kind"`
	APIVersion string `yaml:"apiVersion"`
	Metadata   struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
	StringData map[string]string `yaml:"stringData"`
	Spec       yaml.Node         `yaml:"spec"`
	Resources  []string          `yaml:"resources"` // kustomization
}

type keyRef struct {
	Name string `yaml:"name"`
	Key  string `yaml:"key"`
}

type probe struct {
	HTTPGet *struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
	PeriodSeconds    int `yaml:"periodSeconds"`
	FailureThreshold int `yaml:"failureThreshold"`
}

type container struct {
	Name  string `yaml:"name"`
	Image string `yaml:"image"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	Env []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			SecretKeyRef    *keyRef `yaml:"secretKeyRef"`
			ConfigMapKeyRef *keyRef `yaml:"configMapKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	EnvFrom        []any  `yaml:"envFrom"`
	ReadinessProbe *probe `yaml:"readinessProbe"`
	LivenessProbe  *probe `yaml:"livenessProbe"`
	StartupProbe   *probe `yaml:"startupProbe"`
	Resources      struct {
		Requests map[string]string `yaml:"requests"`
	} `yaml:"resources"`
	Lifecycle struct {
		PreStop *struct {
			Exec struct {
				Command []string `yaml:"command"`
			} `yaml:"exec"`
		} `yaml:"preStop"`
	} `yaml:"lifecycle"`
}

type deploymentSpec struct {
	Replicas int `yaml:"replicas"`
	Selector struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	} `yaml:"selector"`
	Template struct {
		Metadata struct {
			Labels map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec struct {
			TerminationGracePeriodSeconds int         `yaml:"terminationGracePeriodSeconds"`
			Containers                    []container `yaml:"containers"`
		} `yaml:"spec"`
	} `yaml:"template"`
}

type manifests struct {
	docs []k8sDoc
}

func readManifests(t *testing.T) manifests {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("kubernetes", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	var m manifests
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(strings.NewReader(string(raw)))
		for {
			var d k8sDoc
			if err := dec.Decode(&d); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if d.Kind == "" || d.APIVersion == "" {
				t.Errorf("%s: a document without kind or apiVersion", f)
			}
			d.file = filepath.Base(f)
			m.docs = append(m.docs, d)
		}
	}
	return m
}

// one returns the only object of kind (and name, when given).
func (m manifests) one(t *testing.T, kind, name string) k8sDoc {
	t.Helper()
	var found []k8sDoc
	for _, d := range m.docs {
		if d.Kind == kind && (name == "" || d.Metadata.Name == name) {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s objects named %q, want one", len(found), kind, name)
	}
	return found[0]
}

func (m manifests) deployment(t *testing.T) (k8sDoc, deploymentSpec, container) {
	t.Helper()
	d := m.one(t, "Deployment", "")
	var spec deploymentSpec
	if err := d.Spec.Decode(&spec); err != nil {
		t.Fatal(err)
	}
	if len(spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want one", len(spec.Template.Spec.Containers))
	}
	return d, spec, spec.Template.Spec.Containers[0]
}

// podEnv resolves the container's environment from the ConfigMap and Secret
// as the kubelet would, failing on a reference to a missing object or key.
func (m manifests) podEnv(t *testing.T, c container) map[string]string {
	t.Helper()
	if len(c.EnvFrom) > 0 {
		t.Error("envFrom hides which variables a pod gets: list them under env")
	}
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = e.Value
		case e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			v, ok := m.one(t, "Secret", ref.Name).StringData[ref.Key]
			if !ok {
				t.Errorf("%s: secret %s has no key %s", e.Name, ref.Name, ref.Key)
			}
			env[e.Name] = v
		case e.ValueFrom.ConfigMapKeyRef != nil:
			ref := e.ValueFrom.ConfigMapKeyRef
			v, ok := m.one(t, "ConfigMap", ref.Name).Data[ref.Key]
			if !ok {
				t.Errorf("%s: config map %s has no key %s", e.Name, ref.Name, ref.Key)
			}
			env[e.Name] = v
		default:
			t.Errorf("%s: unsupported valueFrom", e.Name)
		}
	}
	return env
}

func TestKubernetesKinds(t *testing.T) {
	m := readManifests(t)
	kinds := map[string]bool{}
	for _, d := range m.docs {
		kinds[d.Kind] = true
	}
	for _, k := range []string{"Deployment", "Service", "Ingress", "ConfigMap", "Secret", "HorizontalPodAutoscaler", "Kustomization"} {
		if !kinds[k] {
			t.Errorf("no %s manifest", k)
		}
	}
	// kubectl apply -k applies what the kustomization lists: every file.
	var files []string
	for _, d := range m.docs {
		if d.Kind != "Kustomization" && !slices.Contains(files, d.file) {
			files = append(files, d.file)
		}
	}
	listed := m.one(t, "Kustomization", "").Resources
	slices.Sort(files)
	slices.Sort(listed)
	if !slices.Equal(files, listed) {
		t.Errorf("kustomization lists %v, the folder has %v", listed, files)
	}
}

func TestKubernetesProbes(t *testing.T) {
	m := readManifests(t)
	_, spec, c := m.deployment(t)
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["api"] != 54321 {
		t.Errorf("container port api = %d, want 54321", ports["api"])
	}
	check := func(what string, p *probe, path string) {
		if p == nil || p.HTTPGet == nil {
			t.Errorf("no %s HTTP probe", what)
			return
		}
		if p.HTTPGet.Path != path || p.HTTPGet.Port != "api" {
			t.Errorf("%s probe: GET %s on %s, want %s on api", what, p.HTTPGet.Path, p.HTTPGet.Port, path)
		}
	}
	// Readiness follows the database and migrations; liveness must not, or
	// a database outage restarts every pod.
	check("readiness", c.ReadinessProbe, "/health/ready")
	check("liveness", c.LivenessProbe, "/health/live")
	if c.StartupProbe != nil {
		t.Error("a startup probe is not needed: the port answers /health/live while migrations run")
	}
	env := m.podEnv(t, c)
	shutdown, err := time.ParseDuration(env["BASALT_SHUTDOWN_TIMEOUT"])
	if err != nil {
		shutdown = 15 * time.Second
	}
	pause := 0
	if ps := c.Lifecycle.PreStop; ps != nil && len(ps.Exec.Command) == 2 && ps.Exec.Command[0] == "sleep" {
		pause, _ = strconv.Atoi(ps.Exec.Command[1])
	}
	if grace := time.Duration(spec.Template.Spec.TerminationGracePeriodSeconds) * time.Second; grace <= shutdown+time.Duration(pause)*time.Second {
		t.Errorf("terminationGracePeriodSeconds %s leaves no time to drain (preStop %ds + BASALT_SHUTDOWN_TIMEOUT %s)", grace, pause, shutdown)
	}
}

// TestKubernetesEnv: every variable resolves from the ConfigMap or Secret,
// is documented, and makes a configuration basalt serve and its services
// accept.
func TestKubernetesEnv(t *testing.T) {
	m := readManifests(t)
	_, _, c := m.deployment(t)
	env := m.podEnv(t, c)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	authReadme, err := os.ReadFile(filepath.Join("..", "auth", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for k := range env {
		short, isAuth := strings.CutPrefix(k, "BASALT_AUTH_")
		if !strings.Contains(string(readme), "`"+k+"`") && !(isAuth && strings.Contains(string(authReadme), "`"+short+"`")) {
			t.Errorf("%s is not documented", k)
		}
	}
	// Secrets belong in the Secret.
	for _, e := range c.Env {
		secret := strings.Contains(e.Name, "SECRET") || strings.Contains(e.Name, "PASSWORD") || e.Name == "DATABASE_URL" || strings.HasSuffix(e.Name, "ACCESS_KEY")
		if secret && (e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
			t.Errorf("%s is not taken from the Secret", e.Name)
		}
	}
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(config.Serve, getenv)
	if err != nil {
		t.Fatalf("basalt serve would refuse the pod's environment: %v", err)
	}
	if _, err := cfg.UserDatabaseURL(); err != nil {
		t.Error(err)
	}
	if u, err := cfg.ReplicaUserURL(); err != nil || (cfg.ReadReplicaURL != "" && !strings.Contains(u, "authenticator")) {
		t.Errorf("replica URL %q: %v", u, err)
	}
	if cfg.AppPort == 0 {
		t.Error("the app server is off, but the Service and Ingress route to it")
	}
	if s, err := storage.ConfigFromEnv(getenv); err != nil || s.Backend != "s3" {
		t.Errorf("storage: backend %q, %v; pods share no disk, so objects must be in S3", s.Backend, err)
	}
	if _, err := rest.ConfigFromEnv(getenv); err != nil {
		t.Errorf("rest: %v", err)
	}
}

func TestKubernetesWiring(t *testing.T) {
	m := readManifests(t)
	dep, spec, c := m.deployment(t)
	labels := spec.Template.Metadata.Labels
	for k, v := range spec.Selector.MatchLabels {
		if labels[k] != v {
			t.Errorf("the selector %s=%s does not match the pod template", k, v)
		}
	}
	if spec.Replicas < 2 {
		t.Errorf("replicas = %d; one pod is no scale-out", spec.Replicas)
	}
	ports := map[string]bool{}
	for _, p := range c.Ports {
		ports[p.Name] = true
	}
	svc := m.one(t, "Service", "")
	var ss struct {
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			Name       string `yaml:"name"`
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
	}
	if err := svc.Spec.Decode(&ss); err != nil {
		t.Fatal(err)
	}
	for k, v := range ss.Selector {
		if labels[k] != v {
			t.Errorf("the Service selects %s=%s, which the pods lack", k, v)
		}
	}
	svcPorts := map[string]bool{}
	for _, p := range ss.Ports {
		svcPorts[p.Name] = true
		if !ports[p.TargetPort] {
			t.Errorf("Service port %s targets %s, no container port", p.Name, p.TargetPort)
		}
	}
	var ing struct {
		Rules []struct {
			HTTP struct {
				Paths []struct {
					Backend struct {
						Service struct {
							Name string `yaml:"name"`
							Port struct {
								Name string `yaml:"name"`
							} `yaml:"port"`
						} `yaml:"service"`
					} `yaml:"backend"`
				} `yaml:"paths"`
			} `yaml:"http"`
		} `yaml:"rules"`
	}
	ingress := m.one(t, "Ingress", "")
	if err := ingress.Spec.Decode(&ing); err != nil {
		t.Fatal(err)
	}
	routed := map[string]bool{}
	for _, r := range ing.Rules {
		for _, p := range r.HTTP.Paths {
			b := p.Backend.Service
			if b.Name != svc.Metadata.Name || !svcPorts[b.Port.Name] {
				t.Errorf("Ingress backend %s:%s is not a port of Service %s", b.Name, b.Port.Name, svc.Metadata.Name)
			}
			routed[b.Port.Name] = true
		}
	}
	if !routed["api"] || !routed["app"] {
		t.Errorf("the Ingress routes %v, want api and app", routed)
	}
	var hpa struct {
		ScaleTargetRef struct {
			Kind string `yaml:"kind"`
			Name string `yaml:"name"`
		} `yaml:"scaleTargetRef"`
		MinReplicas int `yaml:"minReplicas"`
		MaxReplicas int `yaml:"maxReplicas"`
		Metrics     []struct {
			Resource struct {
				Name string `yaml:"name"`
			} `yaml:"resource"`
		} `yaml:"metrics"`
	}
	hpaDoc := m.one(t, "HorizontalPodAutoscaler", "")
	if err := hpaDoc.Spec.Decode(&hpa); err != nil {
		t.Fatal(err)
	}
	if hpa.ScaleTargetRef.Kind != "Deployment" || hpa.ScaleTargetRef.Name != dep.Metadata.Name {
		t.Errorf("the HPA scales %s/%s, not the Deployment", hpa.ScaleTargetRef.Kind, hpa.ScaleTargetRef.Name)
	}
	if hpa.MinReplicas < 2 || hpa.MaxReplicas < hpa.MinReplicas {
		t.Errorf("HPA replicas %d..%d", hpa.MinReplicas, hpa.MaxReplicas)
	}
	for _, mt := range hpa.Metrics {
		if _, ok := c.Resources.Requests[mt.Resource.Name]; !ok {
			t.Errorf("the HPA scales on %s, which the container does not request (utilization is relative to it)", mt.Resource.Name)
		}
	}
}
