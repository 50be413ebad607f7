package realtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/realtime"
	"github.com/basaltdev/basalt/sql/platform"
)

const notesSQL = `
CREATE TABLE public.notes (id bigint PRIMARY KEY, user_id uuid NOT NULL, body text, n int, tags text[], meta jsonb);
ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY "users can read own notes" ON public.notes FOR SELECT TO authenticated USING (user_id = auth.uid());
GRANT SELECT ON public.notes TO anon, authenticated, service_role;
ALTER PUBLICATION supabase_realtime ADD TABLE public.notes;`

const (
	userA = "00000000-0000-0000-0000-00000000000a"
	userB = "00000000-0000-0000-0000-00000000000b"
)

// event is a decoded postgres_changes frame.
type event struct {
	IDs  []int64 `json:"ids"`
	Data struct {
		Schema          string            `json:"schema"`
		Table           string            `json:"table"`
		CommitTimestamp *string           `json:"commit_timestamp"`
		Type            string            `json:"type"`
		Columns         []json.RawMessage `json:"columns"`
		Record          map[string]any    `json:"record"`
		OldRecord       map[string]any    `json:"old_record"`
		Errors          []string          `json:"errors"`
	} `json:"data"`
}

// subscribe joins topic with one postgres_changes binding as token and
// waits for the subscription to be confirmed; it returns the binding id.
func subscribe(t *testing.T, c *client, topic, token string, binding map[string]any) int64 {
	t.Helper()
	payload := map[string]any{"config": map[string]any{"postgres_changes": []any{binding}}}
	if token != "" {
		payload["access_token"] = token
	}
	reply := c.join("1", topic, payload)
	m := regexp.MustCompile(`"id":(\d+)`).FindStringSubmatch(reply)
	if m == nil {
		t.Fatalf("join reply without id: %s", reply)
	}
	var id int64
	_ = json.Unmarshal([]byte(m[1]), &id)
	c.expect(`"system"`, `"message":"Subscribed to PostgreSQL"`, `"status":"ok"`)
	return id
}

// nextChange reads frames until a postgres_changes event.
func nextChange(t *testing.T, c *client) event {
	t.Helper()
	raw := c.expect(`"postgres_changes"`)
	var payload json.RawMessage
	if c.vsn == "2.0.0" {
		var msg []json.RawMessage
		if err := json.Unmarshal([]byte(raw), &msg); err != nil || len(msg) != 5 {
			t.Fatalf("bad frame %s", raw)
		}
		if string(msg[0]) != "null" || string(msg[1]) != "null" {
			t.Errorf("refs of %s, want null", raw)
		}
		payload = msg[4]
	} else {
		var msg struct {
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal([]byte(raw), &msg); err != nil {
			t.Fatalf("bad frame %s", raw)
		}
		payload = msg.Payload
	}
	var ev event
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestPostgresChanges drives INSERT, UPDATE and DELETE through the slot to
// two users under one RLS policy, a filtered subscriber and an anonymous
// one that signs in with access_token.
func TestPostgresChanges(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: true})
	ctx := context.Background()
	if _, err := b.db.Admin.Exec(ctx, notesSQL); err != nil {
		t.Fatal(err)
	}
	all := map[string]any{"event": "*", "schema": "public", "table": "notes"}
	a := b.dial(t, "2.0.0")
	idA := subscribe(t, a, "realtime:a", b.token(t, "authenticated", userA, time.Hour), all)
	bb := b.dial(t, "1.0.0")
	subscribe(t, bb, "realtime:b", b.token(t, "authenticated", userB, time.Hour), all)
	filtered := b.dial(t, "2.0.0")
	idF := subscribe(t, filtered, "realtime:f", b.token(t, "service_role", "", time.Hour),
		map[string]any{"event": "INSERT", "schema": "public", "table": "notes", "filter": "n=gt.5"})
	anon := b.dial(t, "2.0.0")
	subscribe(t, anon, "realtime:anon", "", all)

	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := b.db.Admin.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO public.notes VALUES (1, $1, 'hello', 3, '{x,y}', '{"k":true}')`, userA)
	ev := nextChange(t, a)
	if len(ev.IDs) != 1 || ev.IDs[0] != idA {
		t.Errorf("ids %v, want [%d]", ev.IDs, idA)
	}
	d := ev.Data
	if d.Type != "INSERT" || d.Schema != "public" || d.Table != "notes" || d.Errors != nil {
		t.Errorf("insert data %+v", d)
	}
	if d.CommitTimestamp == nil || !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`).MatchString(*d.CommitTimestamp) {
		t.Errorf("commit_timestamp %v", d.CommitTimestamp)
	}
	cols := make([]string, len(d.Columns))
	for i, c := range d.Columns {
		cols[i] = string(c)
	}
	if got, want := strings.Join(cols, ","), `{"name":"id","type":"int8"},{"name":"user_id","type":"uuid"},{"name":"body","type":"text"},{"name":"n","type":"int4"},{"name":"tags","type":"_text"},{"name":"meta","type":"jsonb"}`; got != want {
		t.Errorf("columns %s, want %s", got, want)
	}
	rec, _ := json.Marshal(d.Record)
	if got, want := string(rec), `{"body":"hello","id":1,"meta":{"k":true},"n":3,"tags":["x","y"],"user_id":"`+userA+`"}`; got != want {
		t.Errorf("record %s, want %s", got, want)
	}

	// B's policy hides A's row; the filtered subscriber wants n > 5.
	exec(`INSERT INTO public.notes VALUES (2, $1, 'big', 9, NULL, NULL)`, userB)
	if ev := nextChange(t, bb); ev.Data.Record["id"] != float64(2) {
		t.Errorf("B got %v, want row 2 (row 1 is not B's)", ev.Data.Record)
	}
	if ev := nextChange(t, filtered); ev.Data.Record["id"] != float64(2) || ev.IDs[0] != idF {
		t.Errorf("filtered got %v %v, want row 2 (n=3 fails n=gt.5)", ev.IDs, ev.Data.Record)
	}

	exec(`UPDATE public.notes SET body = 'changed' WHERE id = 1`)
	ev = nextChange(t, a) // not row 2: B's policy row is hidden from A
	if ev.Data.Type != "UPDATE" || ev.Data.Record["body"] != "changed" {
		t.Errorf("update %+v", ev.Data)
	}
	if old, _ := json.Marshal(ev.Data.OldRecord); string(old) != `{"id":1}` {
		t.Errorf("old_record %s, want the key only", old)
	}

	// DELETE is not RLS-checked: B gets A's delete too, key only.
	exec(`DELETE FROM public.notes WHERE id = 1`)
	for _, c := range []*client{a, bb} {
		ev := nextChange(t, c)
		if ev.Data.Type != "DELETE" || ev.Data.Record != nil {
			t.Errorf("delete %+v", ev.Data)
		}
		if old, _ := json.Marshal(ev.Data.OldRecord); string(old) != `{"id":1}` {
			t.Errorf("delete old_record %s", old)
		}
	}

	// The anonymous subscriber saw only the delete; after signing in as A
	// it sees A's rows.
	if ev := nextChange(t, anon); ev.Data.Type != "DELETE" {
		t.Errorf("anon first event %+v, want the delete", ev.Data)
	}
	anon.push("1", "9", "realtime:anon", "access_token", map[string]any{"access_token": b.token(t, "authenticated", userA, time.Hour)})
	anon.roundTrip("10") // the new token is in use
	exec(`INSERT INTO public.notes VALUES (3, $1, 'after sign-in', 1, NULL, NULL)`, userA)
	if ev := nextChange(t, anon); ev.Data.Record["id"] != float64(3) {
		t.Errorf("after access_token got %+v, want row 3", ev.Data)
	}
}

// TestPostgresChangesSubscriptionErrors checks the system messages for a
// table outside the publication and a filter that does not parse; the join
// itself succeeds.
func TestPostgresChangesSubscriptionErrors(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: true})
	c := b.dial(t, "2.0.0")
	tests := []struct {
		binding map[string]any
		want    string
	}{
		{map[string]any{"event": "*", "schema": "public", "table": "missing"},
			`"message":"Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: [event: *, schema: public, table: missing, filters: [], select: nil]"`},
		{map[string]any{"event": "INSERT", "schema": "public", "table": "t", "filter": "subject=foo.hey"},
			"\"message\":\"Error parsing `filter` params: [\\\"foo\\\", \\\"hey\\\"]\""},
	}
	for i, tt := range tests {
		topic := "realtime:e" + string(rune('a'+i))
		reply := c.join(string(rune('1'+i)), topic, map[string]any{"config": map[string]any{"postgres_changes": []any{tt.binding}}})
		if !strings.Contains(reply, `"status":"ok"`) {
			t.Errorf("join %s", reply)
		}
		c.expect(`"system"`, `"extension":"postgres_changes"`, `"status":"error"`, tt.want)
	}
}

// TestPostgresChangesRLSRightAfterCommit checks a change the slot sends
// before its transaction is visible to other sessions: the RLS check waits
// for it instead of finding no row. A synchronous standby that never comes
// holds a committing session between its flushed commit record (what the
// slot sends) and becoming visible, until it is cancelled.
func TestPostgresChangesRLSRightAfterCommit(t *testing.T) {
	t.Parallel()
	if _, err := pgcluster.FindBinDir(); err != nil {
		if os.Getenv("PGTEST_REQUIRED") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, stop, err := pgcluster.StartTemp(ctx, "pgs", map[string]string{"synchronous_standby_names": "'nobody'"})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	admin, err := pg.Connect(ctx, c.SocketURL("postgres", "postgres"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := migrate.Up(ctx, admin, nil, migrate.Source{Name: "platform", FS: platform.FS}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, notesSQL); err != nil {
		t.Fatal(err)
	}
	user, err := pg.Connect(ctx, c.SocketURL("authenticator", "postgres"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close()
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b := node(t, &pgtest.DB{Admin: admin, User: user}, keys, realtime.Config{PostgresChanges: true})
	a := b.dial(t, "2.0.0")
	subscribe(t, a, "realtime:a", b.token(t, "authenticated", userA, time.Hour),
		map[string]any{"event": "INSERT", "schema": "public", "table": "notes"})

	done := make(chan error, 1)
	go func() {
		tx, err := admin.Begin(ctx)
		if err != nil {
			done <- err
			return
		}
		_, _ = tx.Exec(ctx, `SET LOCAL synchronous_commit = on; SET LOCAL application_name = 'held'`)
		if _, err := tx.Exec(ctx, `INSERT INTO public.notes VALUES (1, $1, 'x', 1, NULL, NULL)`, userA); err != nil {
			done <- err
			return
		}
		done <- tx.Commit(ctx) // waits for the standby until cancelled
	}()
	// The commit is written and waits for the standby that never comes.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var waiting bool
		if err := admin.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_stat_activity WHERE application_name = 'held' AND wait_event = 'SyncRep')`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the commit never waited for the standby")
		}
	}
	if _, err := admin.Exec(ctx, `SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'held'`); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if ev := nextChange(t, a); ev.Data.Record["id"] != float64(1) {
		t.Errorf("got %+v", ev.Data)
	}
}

// TestPostgresChangesFilterOperators checks each filter operator as the
// database evaluates it (values cast to the column type), with every
// matching binding of a channel listed in one event's ids.
func TestPostgresChangesFilterOperators(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: true})
	ctx := context.Background()
	if _, err := b.db.Admin.Exec(ctx, `
		CREATE TABLE public.people (id int PRIMARY KEY, name text, note text, n int, user_id uuid);
		GRANT SELECT ON public.people TO service_role;
		ALTER PUBLICATION supabase_realtime ADD TABLE public.people;`); err != nil {
		t.Fatal(err)
	}
	filters := []string{
		"id=in.(1,3)",
		"name=neq.bob",
		"note=is.null",
		"name=like.al%",
		"id=not.eq.1",
		"user_id=eq." + strings.ToUpper(userA),
		"n=lte.2,name=eq.alice",
		`name=eq."carol,x"`,
	}
	var bindings []any
	for _, f := range filters {
		bindings = append(bindings, map[string]any{"event": "INSERT", "schema": "public", "table": "people", "filter": f})
	}
	c := b.dial(t, "2.0.0")
	reply := c.join("1", "realtime:ops", map[string]any{"config": map[string]any{"postgres_changes": bindings},
		"access_token": b.token(t, "service_role", "", time.Hour)})
	var msg []json.RawMessage
	_ = json.Unmarshal([]byte(reply), &msg)
	var body struct {
		Response struct {
			PostgresChanges []struct {
				ID int64 `json:"id"`
			} `json:"postgres_changes"`
		} `json:"response"`
	}
	if err := json.Unmarshal(msg[4], &body); err != nil || len(body.Response.PostgresChanges) != len(filters) {
		t.Fatalf("join reply %s", reply)
	}
	index := map[int64]int{}
	for i, pc := range body.Response.PostgresChanges {
		index[pc.ID] = i + 1
	}
	c.expect(`"Subscribed to PostgreSQL"`)
	if _, err := b.db.Admin.Exec(ctx, `INSERT INTO public.people VALUES
		(1, 'alice', NULL, 1, $1), (2, 'bob', 'x', 5, $2), (3, 'carol,x', NULL, 2, $2)`, userA, userB); err != nil {
		t.Fatal(err)
	}
	want := map[float64][]int{1: {1, 2, 3, 4, 6, 7}, 2: {5}, 3: {1, 2, 3, 5, 8}}
	for range want {
		ev := nextChange(t, c)
		var got []int
		for _, id := range ev.IDs {
			got = append(got, index[id])
		}
		slices.Sort(got)
		row := ev.Data.Record["id"].(float64)
		if !slices.Equal(got, want[row]) {
			t.Errorf("row %v matched bindings %v, want %v", row, got, want[row])
		}
	}
}

// TestPostgresChangesErrorRecords checks what a subscriber gets for rows
// it may not see: nothing, where the reference sends an empty event with
// "Error 401: Unauthorized" (or, for DELETE, an empty old record) to every
// subscriber of a role that may not select the table's key, and "Error
// 400" for a keyless table under RLS. A keyless table without RLS still
// gets the reference's 400 event, with no row data.
func TestPostgresChangesErrorRecords(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: true})
	ctx := context.Background()
	if _, err := b.db.Admin.Exec(ctx, `
		CREATE TABLE public.nokey (v text);
		CREATE TABLE public.nokey_rls (v text);
		ALTER TABLE public.nokey_rls ENABLE ROW LEVEL SECURITY;
		CREATE POLICY "own" ON public.nokey_rls FOR SELECT USING (v = auth.uid()::text);
		CREATE TABLE public.secret (id int PRIMARY KEY, user_id uuid, v text);
		ALTER TABLE public.secret ENABLE ROW LEVEL SECURITY;
		GRANT ALL ON public.nokey, public.nokey_rls, public.secret TO anon, authenticated, service_role;
		REVOKE ALL ON public.secret FROM anon;
		ALTER PUBLICATION supabase_realtime ADD TABLE public.nokey, public.nokey_rls, public.secret;`); err != nil {
		t.Fatal(err)
	}
	c := b.dial(t, "1.0.0")
	subscribe(t, c, "realtime:errs", "", map[string]any{"event": "*", "schema": "public"})
	filtered := b.dial(t, "1.0.0")
	subscribe(t, filtered, "realtime:errs", "", map[string]any{"event": "*", "schema": "public", "table": "secret", "filter": "user_id=eq." + userA})
	for _, sql := range []string{
		`INSERT INTO public.secret VALUES (1, '` + userA + `', 'x')`,
		`UPDATE public.secret SET v = 'y'`,
		`DELETE FROM public.secret`,
		`INSERT INTO public.nokey_rls VALUES ('x')`,
		`INSERT INTO public.nokey VALUES ('x')`,
	} {
		if _, err := b.db.Admin.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	// The first event is the last insert's: nothing came for the others.
	want := `"data":{"schema":"public","table":"nokey","commit_timestamp":null,"type":"INSERT","columns":[],"record":{},"errors":["Error 400: Bad Request, no primary key"]}`
	if got := c.expect(`"postgres_changes"`); !strings.Contains(got, want) {
		t.Errorf("first event = %s, want %s", got, want)
	}
	// A subscriber following one user's rows learns nothing either. Changes
	// reach subscribers in commit order, so anything sent to it for the
	// secret rows would be queued before the reply to its leave.
	filtered.push("1", "2", "realtime:errs", "phx_leave", map[string]any{})
	if got := filtered.next(); !strings.Contains(got, `"event":"phx_reply"`) || !strings.Contains(got, `"ref":"2"`) {
		t.Errorf("filtered subscriber got %s before the reply to its leave", got)
	}
}

// TestPostgresChangesFilterOnHiddenColumn: a filter on a column the
// subscriber's role may not read matches nothing, or its events would tell
// the column's values.
func TestPostgresChangesFilterOnHiddenColumn(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: true})
	ctx := context.Background()
	if _, err := b.db.Admin.Exec(ctx, `
		CREATE TABLE public.people (id int PRIMARY KEY, name text, salary int);
		REVOKE ALL ON public.people FROM anon;
		GRANT SELECT (id, name) ON public.people TO anon;
		ALTER PUBLICATION supabase_realtime ADD TABLE public.people;`); err != nil {
		t.Fatal(err)
	}
	c := b.dial(t, "2.0.0")
	c.join("1", "realtime:people", map[string]any{"config": map[string]any{"postgres_changes": []any{
		map[string]any{"event": "INSERT", "schema": "public", "table": "people", "filter": "salary=gt.100000"},
		map[string]any{"event": "INSERT", "schema": "public", "table": "people", "filter": "name=eq.last"},
	}}})
	c.expect(`"Subscribed to PostgreSQL"`)
	if _, err := b.db.Admin.Exec(ctx, `INSERT INTO public.people VALUES (1, 'rich', 500000), (2, 'last', 1)`); err != nil {
		t.Fatal(err)
	}
	if ev := nextChange(t, c); ev.Data.Record["id"] != float64(2) {
		t.Errorf("first event %+v, want the row named last", ev.Data.Record)
	}
}

// TestPostgresChangesSelect checks that a binding's select narrows the
// columns and record, the primary key always kept.
func TestPostgresChangesSelect(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: true})
	ctx := context.Background()
	if _, err := b.db.Admin.Exec(ctx, notesSQL); err != nil {
		t.Fatal(err)
	}
	c := b.dial(t, "2.0.0")
	subscribe(t, c, "realtime:sel", b.token(t, "service_role", "", time.Hour),
		map[string]any{"event": "INSERT", "schema": "public", "table": "notes", "select": []string{"body"}})
	if _, err := b.db.Admin.Exec(ctx, `INSERT INTO public.notes VALUES (1, $1, 'only this', 7, NULL, NULL)`, userA); err != nil {
		t.Fatal(err)
	}
	ev := nextChange(t, c)
	rec, _ := json.Marshal(ev.Data.Record)
	if string(rec) != `{"body":"only this","id":1}` || len(ev.Data.Columns) != 2 {
		t.Errorf("record %s columns %s", rec, ev.Data.Columns)
	}
}

// TestChangesToManySubscribers: twenty users subscribe to one table, so
// their row checks are split over connections; a row every user may see
// reaches all of them once, and a row only one user may see reaches that
// one alone.
func TestChangesToManySubscribers(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: true, MaxEventsPerSecond: 1 << 20})
	ctx := context.Background()
	if _, err := b.db.Admin.Exec(ctx, `
		CREATE TABLE public.posts (id bigint PRIMARY KEY, owner uuid NOT NULL, shared bool NOT NULL);
		ALTER TABLE public.posts ENABLE ROW LEVEL SECURITY;
		CREATE POLICY "shared or own" ON public.posts FOR SELECT TO authenticated USING (shared OR owner = auth.uid());
		GRANT SELECT ON public.posts TO authenticated;
		ALTER PUBLICATION supabase_realtime ADD TABLE public.posts;`); err != nil {
		t.Fatal(err)
	}
	const n = 20
	users := make([]string, n)
	subs := make([]*client, n)
	for i := range n {
		users[i] = fmt.Sprintf("00000000-0000-0000-0000-%012d", 100+i)
		subs[i] = b.dial(t, "2.0.0")
		subscribe(t, subs[i], "realtime:posts", b.token(t, "authenticated", users[i], time.Hour),
			map[string]any{"event": "INSERT", "schema": "public", "table": "posts"})
	}
	if _, err := b.db.Admin.Exec(ctx, `INSERT INTO public.posts VALUES (1, $1, true)`, users[0]); err != nil {
		t.Fatal(err)
	}
	for i, c := range subs {
		if ev := nextChange(t, c); ev.Data.Record["id"] != float64(1) {
			t.Fatalf("user %d got %v, want the shared row", i, ev.Data.Record)
		}
	}
	for _, only := range []int{13, 2} {
		id := 10 + only
		if _, err := b.db.Admin.Exec(ctx, `INSERT INTO public.posts VALUES ($1, $2, false)`, id, users[only]); err != nil {
			t.Fatal(err)
		}
		if ev := nextChange(t, subs[only]); ev.Data.Record["id"] != float64(id) {
			t.Fatalf("user %d got %v, want its own row %d", only, ev.Data.Record, id)
		}
	}
	// Nobody else got the private rows, and nobody got anything twice: a
	// shared sentinel row, committed last, is everyone's next change.
	if _, err := b.db.Admin.Exec(ctx, `INSERT INTO public.posts VALUES (99, $1, true)`, users[0]); err != nil {
		t.Fatal(err)
	}
	for i, c := range subs {
		if ev := nextChange(t, c); ev.Data.Record["id"] != float64(99) {
			t.Fatalf("user %d got %v, want the sentinel row 99", i, ev.Data.Record)
		}
	}
}
