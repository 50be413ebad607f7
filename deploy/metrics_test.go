package deploy

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/accesslog"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/replica"
	"github.com/basaltdev/basalt/internal/telemetry"
)

// metricDoc is one row of the README's metrics table.
type metricDoc struct{ Type, Labels string }

// documentedMetrics reads the table of the README's Metrics section.
func documentedMetrics(t *testing.T) map[string]metricDoc {
	t.Helper()
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(raw), "\n### Metrics\n")
	if !ok {
		t.Fatal("README has no Metrics section")
	}
	sec, _, _ = strings.Cut(sec, "\n### ")
	row := regexp.MustCompile("^\\| `(basalt_[a-z_]+)` \\| ([a-z]+) \\|([^|]*)\\|")
	out := map[string]metricDoc{}
	for _, l := range strings.Split(sec, "\n") {
		if m := row.FindStringSubmatch(l); m != nil {
			labels := strings.NewReplacer("`", "", " ", "").Replace(m[3])
			out[m[1]] = metricDoc{Type: m[2], Labels: labels}
		}
	}
	if len(out) == 0 {
		t.Fatal("no metrics in the README's table")
	}
	return out
}

// exposedMetrics gathers every basalt_ series a running binary serves: the
// gateway's (after one request), a pool's and the realtime service's.
func exposedMetrics(t *testing.T) map[string]metricDoc {
	t.Helper()
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	gw, err := gateway.New(gateway.Config{Registry: reg}, gateway.Services{}, keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	gw.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/nowhere", nil))
	// A pool that never connects still has statistics.
	pool, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	reg.MustRegister(telemetry.NewPoolCollector(map[string]*pgxpool.Pool{"admin": pool}))
	rt, err := telemetry.NewRealtimeMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	rt.SlotLagBytes.WithLabelValues("s").Set(0)
	// The realtime service reports its node's sockets as it starts.
	rt.ReportNodeSockets("node-a", func() map[string]int64 { return map[string]int64{"node-a": 0} })
	// The access log writer's, as the binary registers them.
	access, err := accesslog.New(pool, accesslog.Config{}, nil, reg)
	if err != nil {
		t.Fatal(err)
	}
	defer access.Close()
	// The read replica's series, as registered with BASALT_READ_REPLICA_URL.
	router := replica.New(replica.Config{}, pool, pool, slog.New(slog.DiscardHandler))
	defer router.Close()
	reg.MustRegister(router.Collectors()...)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]metricDoc{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "basalt_") {
			continue
		}
		var labels []string
		for _, l := range f.GetMetric()[0].GetLabel() {
			labels = append(labels, l.GetName())
		}
		out[f.GetName()] = metricDoc{Type: strings.ToLower(dto.MetricType_name[int32(f.GetType())]), Labels: strings.Join(labels, ",")}
	}
	return out
}

// TestMetricsDocumented: the README's table lists exactly the basalt_
// series the binary serves, with their types and labels.
func TestMetricsDocumented(t *testing.T) {
	doc := documentedMetrics(t)
	// The table lists labels in the order a reader needs them; compare sets.
	norm := func(m map[string]metricDoc) map[string]metricDoc {
		out := map[string]metricDoc{}
		for k, v := range m {
			ls := strings.Split(v.Labels, ",")
			sort.Strings(ls)
			out[k] = metricDoc{Type: v.Type, Labels: strings.Join(ls, ",")}
		}
		return out
	}
	if diff := cmp.Diff(norm(exposedMetrics(t)), norm(doc)); diff != "" {
		t.Errorf("served metrics (-) vs the README's table (+):\n%s", diff)
	}
}

// TestGrafanaDashboard: the dashboard is valid JSON whose panels query only
// documented metrics with well-formed expressions.
func TestGrafanaDashboard(t *testing.T) {
	raw, err := os.ReadFile("grafana/basalt.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID    string
		Title  string
		Panels []struct {
			ID      int
			Type    string
			Title   string
			GridPos struct{ X, W int }
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	if d.UID == "" || d.Title == "" || len(d.Panels) == 0 {
		t.Fatalf("dashboard uid %q title %q with %d panels", d.UID, d.Title, len(d.Panels))
	}
	doc := documentedMetrics(t)
	used := map[string]bool{}
	ids := map[int]bool{}
	name := regexp.MustCompile(`basalt_[a-z_]+`)
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		if p.GridPos.X+p.GridPos.W > 24 {
			t.Errorf("panel %q is wider than the grid", p.Title)
		}
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			if strings.Count(tg.Expr, "(") != strings.Count(tg.Expr, ")") || strings.Count(tg.Expr, "{") != strings.Count(tg.Expr, "}") {
				t.Errorf("panel %q: unbalanced expression %s", p.Title, tg.Expr)
			}
			for _, n := range name.FindAllString(tg.Expr, -1) {
				base := n
				if _, ok := doc[n]; !ok {
					base = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(n, "_bucket"), "_count"), "_sum")
				}
				if _, ok := doc[base]; !ok {
					t.Errorf("panel %q queries %s, which the README does not list", p.Title, n)
				}
				used[base] = true
			}
		}
	}
	for _, n := range []string{"basalt_http_requests_total", "basalt_http_request_duration_seconds",
		"basalt_db_pool_empty_acquires_total", "basalt_realtime_sockets", "basalt_realtime_slot_lag_bytes"} {
		if !used[n] {
			t.Errorf("no panel shows %s", n)
		}
	}
}
