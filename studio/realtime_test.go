package studio

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/basaltdev/basalt/internal/telemetry"
)

// TestRealtimeToken: the inspector gets a token for anon (the anon key),
// authenticated, or a user (their claims), never for the service role;
// the token verifies with the project's keys and expires within the hour.
func TestRealtimeToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	const uid = "00000000-0000-0000-0000-0000000000aa"
	e.addUser(uid, "fan@example.com")
	type answer struct {
		AccessToken string `json:"access_token"`
		AnonKey     string `json:"anon_key"`
		Role        string `json:"role"`
		Email       string `json:"email"`
	}
	var a answer
	c.json("POST", "/api/realtime/token", map[string]any{"role": "anon"}, http.StatusOK, &a)
	if a.AccessToken != e.keys.AnonKey || a.AnonKey != e.keys.AnonKey {
		t.Fatalf("anon: %+v", a)
	}
	c.json("POST", "/api/realtime/token", map[string]any{"user_id": uid}, http.StatusOK, &a)
	claims, err := e.keys.Verify(a.AccessToken, time.Now())
	if err != nil || claims.Subject != uid || claims.Role != "authenticated" || a.Email != "fan@example.com" ||
		claims.Expires.After(time.Now().Add(time.Hour+time.Minute)) {
		t.Fatalf("user token: %+v %v (%+v)", claims, err, a)
	}
	c.json("POST", "/api/realtime/token", map[string]any{"role": "authenticated"}, http.StatusOK, &a)
	if claims, err := e.keys.Verify(a.AccessToken, time.Now()); err != nil || claims.Role != "authenticated" || claims.Subject != "" {
		t.Fatalf("authenticated token: %+v %v", claims, err)
	}
	for _, body := range []map[string]any{{"role": "service_role"}, {"role": "postgres"}, {}, {"user_id": "nope"}, {"user_id": "00000000-0000-0000-0000-0000000000ff"}} {
		res := c.do("POST", "/api/realtime/token", body)
		if b := readAll(t, res); res.StatusCode != http.StatusBadRequest || strings.Contains(b, "eyJ") {
			t.Errorf("%v: %d %s", body, res.StatusCode, b)
		}
	}
	var st struct {
		Slots []any `json:"slots"`
	}
	c.json("GET", "/api/realtime", nil, http.StatusOK, &st)
	if st.Slots == nil {
		t.Fatalf("no slots list")
	}
}

// TestCSPAllowsTheRealtimeSocket: the page may open the API's websocket,
// and nothing else beyond Studio.
func TestCSPAllowsTheRealtimeSocket(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]string{
		"http://127.0.0.1:54321":   "connect-src 'self' ws://127.0.0.1:54321;",
		"https://api.example.com":  "connect-src 'self' wss://api.example.com;",
		"":                         "connect-src 'self';",
		"javascript:alert(1)//x:1": "connect-src 'self';",
	} {
		if got := contentSecurityPolicy(url); !strings.Contains(got, want) {
			t.Errorf("%q: %s", url, got)
		}
	}
}

// TestRealtimeNodes: the inspector's status lists every node's sockets as
// the realtime service publishes them (basalt_realtime_node_sockets), this
// node first.
func TestRealtimeNodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	reg := prometheus.NewRegistry()
	m, err := telemetry.NewRealtimeMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.ReportNodeSockets("node-b", func() map[string]int64 { return map[string]int64{"node-a": 4, "node-b": 2, "node-c": 0} })
	c := e.signInWith(e.api, reg)
	var status struct {
		Nodes []realtimeNode `json:"nodes"`
	}
	c.json("GET", "/api/realtime", nil, http.StatusOK, &status)
	if got := fmt.Sprint(status.Nodes); got != "[{node-b 2 true} {node-a 4 false} {node-c 0 false}]" {
		t.Fatalf("nodes %s", got)
	}
}
