package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// listenBackends lists this database's backends that LISTEN for the
// control plane: those named as the node's listener, and any other whose
// last statement was a LISTEN, except realtime's own (the data plane).
func listenBackends(t *testing.T, db *pgtest.DB) (shared []int, sharedQuery string, others []string) {
	t.Helper()
	rows, err := db.Admin.Query(context.Background(), `SELECT pid, application_name, query FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()
		  AND (application_name = $1 OR (query ILIKE 'LISTEN%' AND query NOT ILIKE '%realtime\_%'))`, pg.ListenerName)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		var app, query string
		if err := rows.Scan(&pid, &app, &query); err != nil {
			t.Fatal(err)
		}
		if app == pg.ListenerName {
			shared = append(shared, pid)
			sharedQuery = query
		} else {
			others = append(others, query)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return shared, sharedQuery, others
}

// TestOneListenerPerNode: a running node hears pgrst, basalt_api_keys,
// basalt_functions, basalt_net and the read replica's pins on one
// connection, and after that connection's backend is killed it
// reconnects and a schema change still reaches /rest/v1.
func TestOneListenerPerNode(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmptyDB(t)
	secret := strings.Repeat("k", 40)
	base, _ := startServe(t, map[string]string{
		"DATABASE_URL": db.AdminURL, "BASALT_AUTHENTICATOR_URL": db.UserURL, "JWT_SECRET": secret,
		"BASALT_API_PORT": freePort(t), "BASALT_APP_PORT": "0", "BASALT_HOST": "127.0.0.1", "BASALT_SQL_DIR": t.TempDir(),
		"BASALT_DATA_DIR": t.TempDir(), "STORAGE_FILE_DIR": t.TempDir(),
		// The primary stands in for a replica: the router subscribes to
		// its channel (and finds it is no standby).
		"BASALT_READ_REPLICA_URL": db.UserURL,
	})
	keys, err := keysFromConfig(config.Config{JWTSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	// Services subscribe as they start, all to the one listener: no
	// other backend of the node LISTENs for them.
	ctx := context.Background()
	var shared []int
	waitUntil(t, "the node's listener connects", func() bool {
		var others []string
		shared, _, others = listenBackends(t, db)
		if len(others) > 0 {
			t.Fatalf("control-plane LISTENs outside the node's listener: %q", others)
		}
		return len(shared) == 1
	})
	if len(shared) != 1 {
		t.Fatalf("listener backends %v, want one", shared)
	}
	pid := shared[0]

	var killed bool
	if err := db.Admin.QueryRow(ctx, `SELECT pg_terminate_backend($1)`, pid).Scan(&killed); err != nil || !killed {
		t.Fatalf("terminate the listener %d: %v %v", pid, killed, err)
	}
	// Reconnected, it LISTENs for every channel in one round trip.
	var query string
	waitUntil(t, "the listener reconnects", func() bool {
		var s []int
		s, query, _ = listenBackends(t, db)
		return len(s) == 1 && s[0] != pid && strings.HasPrefix(query, "LISTEN")
	})
	for _, c := range []string{"pgrst", "basalt_api_keys", "basalt_net", "basalt_replica_pin"} {
		if !strings.Contains(query, "LISTEN "+c) {
			t.Errorf("the listener's LISTEN %q lacks %s", query, c)
		}
	}
	if _, err := db.Admin.Exec(ctx, `CREATE TABLE public.after_kill (id int PRIMARY KEY); GRANT SELECT ON public.after_kill TO anon;
		INSERT INTO public.after_kill VALUES (1); NOTIFY pgrst`); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the new table is readable through /rest/v1", func() bool {
		req, _ := http.NewRequest("GET", base+"/rest/v1/after_kill", nil)
		req.Header.Set("apikey", keys.AnonKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		return res.StatusCode == 200 && string(body) == `[{"id":1}]`
	})
	if s, _, others := listenBackends(t, db); len(s) != 1 || len(others) > 0 {
		t.Fatalf("after the reconnect: listener backends %v, other LISTENs %q", s, others)
	}
}

// waitUntil polls ok until it holds, for up to 30 seconds.
func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: never happened", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
