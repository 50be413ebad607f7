package rest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/internal/replica"
)

// TestReadReplica runs the service over a real streaming standby of the
// test cluster: reads go to the standby (a row written on the primary while
// replay is paused is not seen), a writer reads its own write at once, and
// when the standby goes away reads are answered by the primary.
func TestReadReplica(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	standby, stop, err := pgcluster.StartTempStandby(ctx, pgtest.Cluster(t), "rst")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	reads, err := pg.Connect(ctx, standby.SocketURL("authenticator", e.db.Name), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer reads.Close()
	standbyAdmin, err := pg.Connect(ctx, standby.SocketURL("postgres", e.db.Name), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer standbyAdmin.Close()
	router := replica.New(replica.Config{MaxLag: time.Minute, Poll: 20 * time.Millisecond}, e.db.Admin, reads, nil)
	defer router.Close()
	svc, err := New(testConfig(), e.db.User, e.db.Admin, WithReplica(router))
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	e.svc = svc
	for deadline := time.Now().Add(10 * time.Second); router.ReadPool(ctx) != reads; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the standby never caught up")
		}
	}
	// Where a function runs shows in pg_is_in_recovery(): read-only calls
	// (GET, or POST to a STABLE function) on the standby, others on the
	// primary.
	if _, err := e.db.Admin.Exec(ctx, `
		CREATE FUNCTION on_standby() RETURNS boolean LANGUAGE sql STABLE AS 'SELECT pg_is_in_recovery()';
		CREATE FUNCTION on_standby_v() RETURNS boolean LANGUAGE sql VOLATILE AS 'SELECT pg_is_in_recovery()'`); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var there bool
		if err := standbyAdmin.QueryRow(ctx, "SELECT to_regprocedure('on_standby_v()') IS NOT NULL").Scan(&there); err == nil && there {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the functions never reached the standby")
		}
	}
	// Called without a user: a volatile call would pin a user's later
	// reads to the primary.
	rpc := func(method, fn string) string {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			w := e.do(t, call{method: method, target: "/rpc/" + fn, as: asAnon})
			if w.Code == http.StatusOK {
				return w.Body.String()
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s /rpc/%s: %d %s", method, fn, w.Code, w.Body.String())
			}
		}
	}
	for _, c := range []struct{ method, fn, want string }{
		{"GET", "on_standby", "true"}, {"POST", "on_standby", "true"},
		{"GET", "on_standby_v", "true"}, {"POST", "on_standby_v", "false"},
	} {
		if got := rpc(c.method, c.fn); got != c.want {
			t.Errorf("%s /rpc/%s ran with pg_is_in_recovery() = %s, want %s", c.method, c.fn, got, c.want)
		}
	}
	if _, err := standbyAdmin.Exec(ctx, "SELECT pg_wal_replay_pause()"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Admin.Exec(ctx, "INSERT INTO products (name) VALUES ('fresh')"); err != nil {
		t.Fatal(err)
	}
	get := func(as caller, name string) string {
		t.Helper()
		w := e.do(t, call{target: "/products?select=name&name=eq." + name, as: as})
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", name, w.Code, w.Body.String())
		}
		return w.Body.String()
	}
	if got := get(asBob, "fresh"); got != `[]` {
		t.Errorf("read while replay is paused = %s; want [] from the standby", got)
	}
	if w := e.do(t, call{method: "POST", target: "/products", body: `{"name":"mine"}`, as: asAlice}); w.Code != http.StatusCreated {
		t.Fatalf("POST: %d %s", w.Code, w.Body.String())
	}
	if got := get(asAlice, "mine"); got != `[{"name":"mine"}]` {
		t.Errorf("the writer reads %s; want its own write", got)
	}
	if got := get(asBob, "mine"); got != `[]` {
		t.Errorf("another user reads %s; want the standby's []", got)
	}
	// A table the schema cache knows (it is read from the primary) but the
	// paused standby has not replayed: the read is retried on the primary.
	if _, err := e.db.Admin.Exec(ctx, "CREATE TABLE late (v text); GRANT ALL ON late TO authenticated; INSERT INTO late VALUES ('here')"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		w := e.do(t, call{target: "/late?select=v", as: asBob})
		if strings.Contains(w.Body.String(), "PGRST205") && time.Now().Before(deadline) {
			continue // the schema cache has not reloaded yet
		}
		if w.Code != http.StatusOK || w.Body.String() != `[{"v":"here"}]` {
			t.Errorf("table not yet on the standby: %d %s; want the primary's answer", w.Code, w.Body.String())
		}
		break
	}
	// The standby goes away: the next read is answered by the primary,
	// retried there if it was already on its way to the standby.
	if err := standby.Stop(ctx, "fast"); err != nil {
		t.Fatal(err)
	}
	if got := get(asBob, "fresh"); got != `[{"name":"fresh"}]` {
		t.Errorf("read with the standby stopped = %s; want the primary's row", got)
	}
}
