package realtime_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/basaltdev/basalt/internal/telemetry"
	"github.com/basaltdev/basalt/realtime"
)

// TestCluster runs two nodes on one database: broadcasts and presence
// cross between them through LISTEN/NOTIFY, exactly one node reads the
// replication slot and both deliver its changes, and when the reading node
// stops the other takes over.
func TestCluster(t *testing.T) {
	t.Parallel()
	cfg := realtime.Config{PostgresChanges: true, Cluster: true}
	n1 := setup(t, cfg)
	n2 := node(t, n1.db, n1.keys, cfg)
	ctx := context.Background()
	if _, err := n1.db.Admin.Exec(ctx, notesSQL); err != nil {
		t.Fatal(err)
	}
	join := map[string]any{"config": map[string]any{"presence": map[string]any{"key": "k1", "enabled": true}}}
	c1 := n1.dial(t, "2.0.0")
	c1.join("1", "realtime:room", join)
	c2 := n2.dial(t, "1.0.0")
	c2.join("1", "realtime:room", map[string]any{"config": map[string]any{"presence": map[string]any{"key": "k2", "enabled": true}}})
	waitPeers(t, n1, n2)

	c1.push("1", "2", "realtime:room", "broadcast", map[string]any{"type": "broadcast", "event": "hop", "payload": map[string]any{"from": 1}})
	c2.expect(`"event":"broadcast"`, `"event":"hop"`, `"from":1`)

	// Larger than a NOTIFY payload: carried through realtime.cluster_messages.
	big := strings.Repeat("b", 20000)
	c1.push("1", "2", "realtime:room", "broadcast", map[string]any{"type": "broadcast", "event": "big", "payload": map[string]any{"s": big}})
	if msg := c2.expect(`"event":"big"`); !strings.Contains(msg, big) {
		t.Errorf("large broadcast arrived cut to %d bytes", len(msg))
	}

	c1.push("1", "3", "realtime:room", "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"node": 1}})
	c2.expect(`"presence_diff"`, `"joins":{"k1":{"metas":[{"node":1,"phx_ref":"`)
	late := n2.dial(t, "2.0.0")
	late.join("1", "realtime:room", map[string]any{"config": map[string]any{"presence": map[string]any{"enabled": true}}})
	if st := late.expect(`"presence_state"`); !strings.Contains(st, `"k1":{"metas":[{"node":1,"phx_ref":"`) {
		t.Errorf("state on the other node = %s", st)
	}

	// postgres_changes: each node's subscriber gets the change once.
	all := map[string]any{"event": "INSERT", "schema": "public", "table": "notes"}
	s1 := n1.dial(t, "2.0.0")
	subscribe(t, s1, "realtime:pg", n1.token(t, "service_role", "", time.Hour), all)
	s2 := n2.dial(t, "2.0.0")
	subscribe(t, s2, "realtime:pg", n1.token(t, "service_role", "", time.Hour), all)
	if _, err := n1.db.Admin.Exec(ctx, `INSERT INTO public.notes VALUES (1, $1, $2, 1, NULL, NULL)`, userA, big); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*client{s1, s2} {
		if ev := nextChange(t, c); ev.Data.Record["id"] != float64(1) || ev.Data.Record["body"] != big {
			t.Errorf("node subscriber got %+v", ev.Data.Record["id"])
		}
	}

	// The leader stops; the survivor reads the slot from then on.
	leader, survivor, sc := n1, n2, s2
	if n2.svc.ReadsChanges() {
		leader, survivor, sc = n2, n1, s1
	}
	leader.svc.Close()
	deadline := time.Now().Add(15 * time.Second)
	for !survivor.svc.ReadsChanges() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !survivor.svc.ReadsChanges() {
		t.Fatal("no node took over the slot")
	}
	// The survivor streams the slot from here: a row committed now is read
	// by it (and one committed before the hand-over would be too, the slot
	// keeps what nobody confirmed), so nothing more needs waiting for.
	if _, err := n1.db.Admin.Exec(ctx, `INSERT INTO public.notes VALUES (2, $1, 'y', 1, NULL, NULL)`, userA); err != nil {
		t.Fatal(err)
	}
	if ev := nextChange(t, sc); ev.Data.Record["id"] != float64(2) {
		t.Errorf("after hand-over got %+v", ev.Data)
	}
}

// TestClusterReaderCrash kills the node reading the slot in the middle of
// a stream of inserts. A client of the other node, subscribed all along,
// receives every row exactly once: the survivor takes the slot over where
// it was last confirmed, and the rows both the dead node and the survivor
// read are delivered once.
func TestClusterReaderCrash(t *testing.T) {
	t.Parallel()
	cfg := realtime.Config{PostgresChanges: true, Cluster: true, MaxEventsPerSecond: 1_000_000}
	n1 := setup(t, cfg)
	n2 := node(t, n1.db, n1.keys, cfg)
	if _, err := n1.db.Admin.Exec(context.Background(), notesSQL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for !n1.svc.ReadsChanges() && !n2.svc.ReadsChanges() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	reader, survivor := n1, n2
	if n2.svc.ReadsChanges() {
		reader, survivor = n2, n1
	}
	waitPeers(t, n1, n2)
	f := joinFeed(t, survivor.dial(t, "2.0.0"), "realtime:feed", n1.token(t, "authenticated", userA, time.Hour),
		map[string]any{"event": "INSERT", "schema": "public", "table": "notes"})

	w := startWriter(n1.db.Admin, userA)
	w.waitFor(t, 100)
	realtime.Crash(reader.svc)
	crashed := w.committed.Load()
	deadline = time.Now().Add(15 * time.Second)
	for !survivor.svc.ReadsChanges() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !survivor.svc.ReadsChanges() {
		t.Fatal("no node took over the slot")
	}
	w.waitFor(t, w.committed.Load()+100)
	last := w.finish(t)
	got := map[int64]int{}
	f.until(t, got, last)
	var missing []int64
	for id := int64(1); id <= last; id++ {
		switch got[id] {
		case 0:
			missing = append(missing, id)
		case 1:
		default:
			t.Errorf("row %d arrived %d times", id, got[id])
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d rows never arrived (the reader died after row %d), first %v", len(missing), last, crashed,
			missing[:min(len(missing), 20)])
	}
}

// TestClusterFollowerStop stops, gracefully, a node that does not read the
// slot while rows stream in: its client receives every row committed
// before the stop began (published by the reader, some after the stop
// began) before its socket is closed.
func TestClusterFollowerStop(t *testing.T) {
	t.Parallel()
	cfg := realtime.Config{PostgresChanges: true, Cluster: true, MaxEventsPerSecond: 1_000_000}
	n1 := setup(t, cfg)
	n2 := node(t, n1.db, n1.keys, cfg)
	if _, err := n1.db.Admin.Exec(context.Background(), notesSQL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for !n1.svc.ReadsChanges() && !n2.svc.ReadsChanges() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	follower := n1
	if !n2.svc.ReadsChanges() {
		follower = n2
	}
	waitPeers(t, n1, n2)
	f := joinFeed(t, follower.dial(t, "2.0.0"), "realtime:feed", n1.token(t, "authenticated", userA, time.Hour),
		map[string]any{"event": "INSERT", "schema": "public", "table": "notes"})
	w := startWriter(n1.db.Admin, userA)
	w.waitFor(t, 100)
	beforeStop := w.committed.Load()
	follower.svc.Close()
	w.finish(t)
	got := map[int64]int{}
	f.until(t, got, 0)
	for id := int64(1); id <= beforeStop; id++ {
		if got[id] != 1 {
			t.Errorf("row %d, committed before the stop, arrived %d times", id, got[id])
		}
	}
}

// waitPeers waits until every node has heard from the others.
func waitPeers(t *testing.T, nodes ...*bundle) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for _, n := range nodes {
		for n.svc.Peers() < len(nodes)-1 {
			if time.Now().After(deadline) {
				t.Fatal("the nodes did not find each other")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestNodeSockets: each node knows every node's sockets that joined a
// channel, its own and the others' as they reported them, and publishes
// them as basalt_realtime_node_sockets for Studio's inspector.
func TestNodeSockets(t *testing.T) {
	t.Parallel()
	rc := realtime.Config{PostgresChanges: false, Cluster: true}
	reg := prometheus.NewRegistry()
	m, err := telemetry.NewRealtimeMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	n1 := setup(t, rc, realtime.WithMetrics(m))
	n2 := node(t, n1.db, n1.keys, rc)
	waitPeers(t, n1, n2)
	cfg := map[string]any{"config": map[string]any{}}
	for _, topic := range []string{"realtime:a", "realtime:b"} {
		if got := n1.dial(t, "2.0.0").join("1", topic, cfg); !strings.Contains(got, `"status":"ok"`) {
			t.Fatalf("join %s = %s", topic, got)
		}
	}
	if got := n2.dial(t, "2.0.0").join("1", "realtime:a", cfg); !strings.Contains(got, `"status":"ok"`) {
		t.Fatalf("join on the other node = %s", got)
	}
	want := map[string]int64{n1.svc.NodeID(): 2, n2.svc.NodeID(): 1}
	for _, n := range []*bundle{n1, n2} {
		for deadline := time.Now().Add(10 * time.Second); ; {
			got := n.svc.NodeSockets()
			if len(got) == 2 && got[n1.svc.NodeID()] == 2 && got[n2.svc.NodeID()] == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("node %s sees %v, want %v", n.svc.NodeID(), got, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, f := range families {
		if f.GetName() != "basalt_realtime_node_sockets" {
			continue
		}
		for _, metric := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range metric.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			seen[labels["node"]] = fmt.Sprintf("%v self=%s", metric.GetGauge().GetValue(), labels["self"])
		}
	}
	if seen[n1.svc.NodeID()] != "2 self=true" || seen[n2.svc.NodeID()] != "1 self=false" || len(seen) != 2 {
		t.Fatalf("basalt_realtime_node_sockets %v", seen)
	}
}
