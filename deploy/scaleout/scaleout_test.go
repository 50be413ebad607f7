// Package scaleout runs the compose topology of deploy/ from processes on
// one machine: a PostgreSQL primary and a streaming standby, a real S3
// server, and two basalt serve processes built from this checkout, and
// checks what clients of a load-balanced deployment rely on.
package scaleout

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
)

// topology is everything the test started.
type topology struct {
	primary, standby *pgcluster.Cluster
	admin            *pgxpool.Pool // superuser on the primary
	standbyAdmin     *pgxpool.Pool // superuser on the standby
	s3Dir            string
	keys             *jwt.Keys
	a, b             *node
}

// maxLag is the nodes' BASALT_READ_REPLICA_MAX_LAG: generous, so that on a
// loaded machine the replica's measured lag stays under it until the test
// pauses replay on purpose.
const maxLag = 6 * time.Second

func TestScaleOut(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL, a standby, an S3 server and two basalt processes")
	}
	top := startTopology(t)
	user := crossNodeAuth(t, top)
	crossNodeStorage(t, top, user)
	crossNodeRealtime(t, top)
	setupNotes(t, top)
	readsOnReplica(t, top, user)
	killNodeMidTraffic(t, top, user)
	replicaGone(t, top)
}

func startTopology(t *testing.T) *topology {
	t.Helper()
	root := moduleRoot(t)
	if _, err := pgcluster.FindBinDir(); err != nil {
		required(t, os.Getenv("PGTEST_REQUIRED") != "", "%v", err)
	}
	vgw := findVersitygw(t, root)
	bin := buildBasalt(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	top := &topology{}
	primary, stop, err := pgcluster.StartTemp(ctx, "sop", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	standby, stopStandby, err := pgcluster.StartTempStandby(ctx, primary, "sos")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopStandby)
	top.primary, top.standby = primary, standby
	for _, c := range []struct {
		dst **pgxpool.Pool
		url string
	}{{&top.admin, primary.SocketURL("postgres", "postgres")}, {&top.standbyAdmin, standby.SocketURL("postgres", "postgres")}} {
		pool, err := pg.Connect(ctx, c.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		*c.dst = pool
	}

	// A real S3 server on a folder of its own.
	top.s3Dir = t.TempDir()
	s3Port := itoa(freePort(t))
	s3 := start(t, "versitygw", os.Environ(), vgw, "--access", "scaleout", "--secret", "scaleout-secret",
		"--port", "127.0.0.1:"+s3Port, "--quiet", "posix", top.s3Dir)
	waitTCP(t, s3, "127.0.0.1:"+s3Port)

	// Two nodes with one configuration, as compose.yaml gives them.
	secret := strings.Repeat("scale-out-secret-", 3)
	top.keys = &jwt.Keys{Secret: []byte(secret), SigningAlg: "HS256"}
	anon, err := top.keys.APIKey("anon", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	service, _ := top.keys.APIKey("service_role", time.Now())
	top.keys.AnonKey, top.keys.ServiceRoleKey = anon, service
	shared := []string{
		"PATH=" + os.Getenv("PATH"),
		"DATABASE_URL=" + primary.SocketURL("postgres", "postgres"),
		"BASALT_AUTHENTICATOR_URL=" + primary.SocketURL("authenticator", "postgres"),
		"BASALT_READ_REPLICA_URL=" + standby.SocketURL("authenticator", "postgres"),
		"BASALT_READ_REPLICA_MAX_LAG=" + maxLag.String(),
		"BASALT_READ_REPLICA_POLL=50ms",
		"JWT_SECRET=" + secret, "ANON_KEY=" + anon, "SERVICE_ROLE_KEY=" + service,
		"API_EXTERNAL_URL=http://localhost:54321",
		"BASALT_AUTH_MAILER_AUTOCONFIRM=true",
		"BASALT_SQL_DIR=" + t.TempDir(), // platform migrations only
		"BASALT_HOST=127.0.0.1", "BASALT_APP_PORT=0",
		"STORAGE_BACKEND=s3", "STORAGE_S3_ENDPOINT=127.0.0.1:" + s3Port, "STORAGE_S3_BUCKET=basalt",
		"STORAGE_S3_REGION=us-east-1", "STORAGE_S3_ACCESS_KEY=scaleout", "STORAGE_S3_SECRET_KEY=scaleout-secret",
		"STORAGE_S3_USE_SSL=false",
	}
	// Both start at once: migrations and the bucket are set up by
	// whichever comes first, without the other failing.
	for _, n := range []**node{&top.a, &top.b} {
		name := "node-a"
		if n == &top.b {
			name = "node-b"
		}
		port := itoa(freePort(t))
		p := start(t, name, append(shared, "BASALT_API_PORT="+port), bin, "serve")
		*n = &node{name: name, base: "http://127.0.0.1:" + port, proc: p, anon: anon}
	}
	for _, n := range []*node{top.a, top.b} {
		waitHTTP(t, n.proc, n.base+"/health/ready", 45*time.Second)
	}
	return top
}

// token mints an access token for sub, issued long ago: its reads are not
// kept on the primary for being fresh, only for what the user writes.
func (top *topology) token(t *testing.T, sub string) string {
	t.Helper()
	tok, err := top.keys.Sign(gojwt.MapClaims{"sub": sub, "role": "authenticated", "aud": "authenticated",
		"iat": time.Now().Add(-time.Hour).Unix(), "exp": time.Now().Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// crossNodeAuth: a user signs up through A and signs in through B, and
// each node accepts the other's token.
func crossNodeAuth(t *testing.T, top *topology) session {
	t.Helper()
	creds := map[string]string{"email": "fan@example.com", "password": "correct-horse-battery"}
	up := decode[session](t, top.a.want(t, 200, "POST", "/auth/v1/signup", "", creds, nil))
	in := decode[session](t, top.b.want(t, 200, "POST", "/auth/v1/token?grant_type=password", "", creds, nil))
	if up.User.ID == "" || in.User.ID != up.User.ID {
		t.Fatalf("signed up as %q through A, signed in as %q through B", up.User.ID, in.User.ID)
	}
	// Each node accepts the session the other issued.
	for _, c := range []struct {
		n   *node
		tok string
	}{{top.a, in.AccessToken}, {top.b, up.AccessToken}} {
		u := decode[map[string]any](t, c.n.want(t, 200, "GET", "/auth/v1/user", c.tok, nil, nil))
		if u["id"] != up.User.ID {
			t.Errorf("%s reads the other node's session as user %v", c.n.name, u["id"])
		}
	}
	return in
}

// crossNodeStorage: a file uploaded through A downloads through B, and its
// bytes are in the S3 server's folder.
func crossNodeStorage(t *testing.T, top *topology, user session) {
	t.Helper()
	sqlExec(t, top.admin, `CREATE POLICY files_rw ON storage.objects FOR ALL TO authenticated
		USING (bucket_id = 'files') WITH CHECK (bucket_id = 'files')`)
	top.a.want(t, 200, "POST", "/storage/v1/bucket", top.keys.ServiceRoleKey, map[string]any{"id": "files", "name": "files", "public": false}, nil)
	content := []byte("a demo track's liner notes\n")
	path := "/storage/v1/object/files/" + user.User.ID + "/notes.txt"
	top.a.want(t, 200, "POST", path, user.AccessToken, content, map[string]string{"Content-Type": "text/plain"})
	got := top.b.want(t, 200, "GET", path, user.AccessToken, nil, nil)
	if string(got) != string(content) {
		t.Errorf("downloaded through B: %q, want %q", got, content)
	}
	found := 0
	_ = filepath.Walk(filepath.Join(top.s3Dir, "basalt"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if b, _ := os.ReadFile(p); string(b) == string(content) {
				found++
			}
		}
		return nil
	})
	if found != 1 {
		t.Errorf("the S3 server's folder holds the object %d times, want once", found)
	}
}

func sqlExec(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// setupNotes creates the table the REST checks use and waits until both
// nodes' schema caches have it.
func setupNotes(t *testing.T, top *topology) {
	t.Helper()
	sqlExec(t, top.admin, `
		CREATE TABLE public.notes (id bigserial PRIMARY KEY, owner uuid NOT NULL DEFAULT auth.uid(), body text NOT NULL UNIQUE);
		ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
		CREATE POLICY notes_read ON public.notes FOR SELECT USING (true);
		CREATE POLICY notes_insert ON public.notes FOR INSERT TO authenticated WITH CHECK (owner = auth.uid());
		GRANT SELECT ON public.notes TO anon, authenticated;
		GRANT INSERT ON public.notes TO authenticated;
		GRANT USAGE ON SEQUENCE public.notes_id_seq TO authenticated`)
	for _, n := range []*node{top.a, top.b} {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if code, _ := n.call(t, "GET", "/rest/v1/notes?select=id&limit=1", "", nil, nil); code == 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never found the notes table", n.name)
			}
		}
	}
}

// waitReplicaReads waits until a read through n is served by the replica.
func waitReplicaReads(t *testing.T, n *node) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		// A read sent to the replica counts there even when the replica
		// fails it and it is run again on the primary (the standby has not
		// replayed the table yet: 42P01): only one with no such retry shows
		// that the standby serves the table.
		before := n.metric(t, "basalt_read_replica_reads_total", `target="replica"`)
		retried := n.metric(t, "basalt_read_replica_fallbacks_total", `reason="error"`)
		n.want(t, 200, "GET", "/rest/v1/notes?select=id&limit=1", "", nil, nil)
		if n.metric(t, "basalt_read_replica_reads_total", `target="replica"`) > before &&
			n.metric(t, "basalt_read_replica_fallbacks_total", `reason="error"`) == retried {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never read from the replica", n.name)
		}
	}
}

func bodies(t *testing.T, n *node, token, body string) string {
	t.Helper()
	return string(n.want(t, 200, "GET", "/rest/v1/notes?select=body&body=eq."+body, token, nil, nil))
}

// readsOnReplica: with replay paused on the standby, a row written on the
// primary is not seen through either node (reads are on the standby), yet a
// user who writes through A reads the write at once through A and B; past
// the maximum lag every read falls back to the primary, counted.
func readsOnReplica(t *testing.T, top *topology, user session) {
	t.Helper()
	waitReplicaReads(t, top.a)
	waitReplicaReads(t, top.b)
	writer := top.token(t, user.User.ID)
	other := top.token(t, "00000000-0000-4000-8000-000000000001")
	sqlExec(t, top.standbyAdmin, "SELECT pg_wal_replay_pause()")
	// The pause is a request: the standby stops before the next record it
	// replays. Wait until it says it has, feeding it a record if it idles,
	// so the row below is surely written after the pause took hold.
	for deadline := time.Now().Add(10 * time.Second); ; {
		var state string
		if err := top.standbyAdmin.QueryRow(context.Background(), "SELECT pg_get_wal_replay_pause_state()").Scan(&state); err != nil {
			t.Fatal(err)
		}
		if state == "paused" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby's replay is %q, not paused", state)
		}
		sqlExec(t, top.admin, "INSERT INTO notes (owner, body) VALUES (gen_random_uuid(), 'pause probe')")
		time.Sleep(20 * time.Millisecond)
	}
	paused := time.Now()
	sqlExec(t, top.admin, "INSERT INTO notes (owner, body) VALUES (gen_random_uuid(), 'direct')")
	for _, n := range []*node{top.a, top.b} {
		if got := bodies(t, n, "", "direct"); got != "[]" {
			t.Errorf("%s: a row written on the primary during the pause reads %s; want [] from the standby", n.name, got)
		}
	}
	top.a.want(t, 201, "POST", "/rest/v1/notes", writer, map[string]string{"body": "mine"}, map[string]string{"Prefer": "return=minimal"})
	written := time.Now()
	pinnedB := top.b.metric(t, "basalt_read_replica_pinned_reads_total", "")
	if got := bodies(t, top.a, writer, "mine"); got != `[{"body":"mine"}]` {
		t.Errorf("node-a: the writer reads %s right after its write; want its row", got)
	}
	// B hears of the write through the primary when it commits; a client's
	// next request through another node normally comes later than that,
	// but on a loaded machine the notification can take a few
	// milliseconds, so B gets a moment (far below the maximum lag, past
	// which reads would fall back anyway).
	for {
		got := bodies(t, top.b, writer, "mine")
		if got == `[{"body":"mine"}]` {
			t.Logf("node-b served the writer's read %s after the write", time.Since(written).Round(time.Millisecond))
			break
		}
		if time.Since(written) > 500*time.Millisecond {
			t.Fatalf("node-b: the writer reads %s; want its row", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if top.b.metric(t, "basalt_read_replica_pinned_reads_total", "") <= pinnedB {
		t.Error("node B did not count the writer's pinned read")
	}
	if got := bodies(t, top.b, other, "mine"); got != "[]" {
		t.Errorf("another user reads %s through B; want the standby's []", got)
	}
	if time.Since(paused) >= maxLag {
		t.Fatalf("the checks above took %s, longer than the maximum lag: they proved nothing", time.Since(paused))
	}
	lagA := top.a.metric(t, "basalt_read_replica_fallbacks_total", `reason="lag"`)
	for deadline := time.Now().Add(3 * maxLag); bodies(t, top.a, "", "direct") == "[]"; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("reads never fell back to the primary while the standby lagged")
		}
	}
	if top.a.metric(t, "basalt_read_replica_fallbacks_total", `reason="lag"`) <= lagA {
		t.Error("the lag fallback was not counted")
	}
	sqlExec(t, top.standbyAdmin, "SELECT pg_wal_replay_resume()")
	waitReplicaReads(t, top.a)
	waitReplicaReads(t, top.b)
}

// killNodeMidTraffic: writers go through A until it is killed with SIGKILL,
// then on through B, retrying what got no answer (idempotently: on_conflict
// on the unique body). Every acknowledged write is in the database.
func killNodeMidTraffic(t *testing.T, top *topology, user session) {
	t.Helper()
	writer := top.token(t, user.User.ID)
	var acked sync.Map // body -> node name
	var total, afterKill atomic.Int64
	killed := make(chan struct{})
	var wg sync.WaitGroup
	deadline := time.Now().Add(20 * time.Second)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			target := top.a
			for i := 0; time.Now().Before(deadline); i++ {
				body := fmt.Sprintf("k-%d-%d", g, i)
				for {
					raw := []byte(fmt.Sprintf(`{"body":%q}`, body))
					code, _, err := target.request("POST", "/rest/v1/notes?on_conflict=body", writer, raw,
						map[string]string{"Prefer": "resolution=ignore-duplicates,return=minimal"})
					if err == nil && code == 201 {
						acked.Store(body, target.name)
						if total.Add(1); target == top.b {
							afterKill.Add(1)
						}
						break
					}
					if target == top.a {
						target = top.b // A is gone: go on through B
						continue
					}
					if time.Now().After(deadline) {
						t.Errorf("write %s through B: %d %v", body, code, err)
						return
					}
					time.Sleep(20 * time.Millisecond)
				}
				select {
				case <-killed:
					if afterKill.Load() >= 40 {
						return
					}
				default:
				}
			}
		}()
	}
	for total.Load() < 40 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	top.a.proc.stop(syscall.SIGKILL)
	close(killed)
	wg.Wait()
	if afterKill.Load() < 40 {
		t.Fatalf("only %d writes through B after A was killed", afterKill.Load())
	}
	stored := map[string]bool{}
	rows, err := top.admin.Query(context.Background(), "SELECT body FROM notes WHERE body LIKE 'k-%'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		stored[b] = true
	}
	rows.Close()
	viaA, lost := 0, 0
	acked.Range(func(k, v any) bool {
		if v == "node-a" {
			viaA++
		}
		if !stored[k.(string)] {
			lost++
			t.Errorf("acknowledged write %s (through %s) is not in the database", k, v)
		}
		return true
	})
	if viaA == 0 {
		t.Error("no write was acknowledged by A before it was killed")
	}
	// The client goes on reading through B, its writes included.
	if got := bodies(t, top.b, writer, "k-0-0"); got != `[{"body":"k-0-0"}]` {
		t.Errorf("reading through B after the kill: %s", got)
	}
	t.Logf("%d writes acknowledged (%d through A before SIGKILL), %d lost", total.Load(), viaA, lost)
}

// replicaGone: the standby stops; reads through B are answered by the
// primary, and the fallback is counted.
func replicaGone(t *testing.T, top *topology) {
	t.Helper()
	b := top.b
	before := b.metric(t, "basalt_read_replica_fallbacks_total", `reason="unavailable"`) +
		b.metric(t, "basalt_read_replica_fallbacks_total", `reason="error"`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := top.standby.Stop(ctx, "fast"); err != nil {
		t.Fatal(err)
	}
	sqlExec(t, top.admin, "INSERT INTO notes (owner, body) VALUES (gen_random_uuid(), 'after-replica')")
	for range 5 {
		if got := bodies(t, b, "", "after-replica"); got != `[{"body":"after-replica"}]` {
			t.Errorf("with the standby stopped, B reads %s; want the primary's row", got)
		}
	}
	after := b.metric(t, "basalt_read_replica_fallbacks_total", `reason="unavailable"`) +
		b.metric(t, "basalt_read_replica_fallbacks_total", `reason="error"`)
	if after < before+5 {
		t.Errorf("fallbacks counted: %v -> %v, want 5 more", before, after)
	}
	if up := b.metric(t, "basalt_read_replica_up", ""); up != 0 {
		t.Errorf("basalt_read_replica_up = %v with the standby stopped", up)
	}
}
