package studio

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/sql/platform"
)

// testApp is a project's SQL folder with one migration the test databases
// have not applied.
var testApp = migrate.Source{Name: "app", FS: fstest.MapFS{
	"0001_widgets.sql":      {Data: []byte(`CREATE TABLE public.widgets (id int PRIMARY KEY);`)},
	"0001_widgets.down.sql": {Data: []byte(`DROP TABLE public.widgets;`)},
}}

var testMigrations = []migrate.Source{{Name: "platform", FS: platform.FS}, testApp}

// slotFor names a replication slot after a test database (slots belong to
// the cluster every test shares).
func slotFor(db *pgtest.DB) string {
	return "studio_" + strings.ToLower(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, strings.ToLower(db.Name)))
}

// refusedWrites are write calls of writeCalls that are refused, and audited
// all the same: pg_cron is off in the test databases.
// The tests give Studio no backups (the binary does; cmd/basalt tests them).
var refusedWrites = map[string]int{"POST /api/cron/jobs": 400, "PATCH /api/cron/jobs/{id}": 400, "DELETE /api/cron/jobs/{id}": 400,
	"POST /api/database/backups": 501, "POST /api/database/backups/{name}/restore": 501}

// databaseWriteCalls prepares what the write routes of the Database, Cron,
// Queues and Webhooks screens act on (public.t exists) and returns a valid
// call of each. pg_cron is off in these databases: its writes are refused
// with the reason, and audited all the same.
func databaseWriteCalls(t *testing.T, e *env) map[string]writeCall {
	t.Helper()
	e.exec(`CREATE EXTENSION citext`)
	e.exec(`SELECT pg_create_physical_replication_slot($1)`, slotFor(e.db))
	t.Cleanup(func() {
		_, _ = e.db.Admin.Exec(context.Background(), `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1`, slotFor(e.db))
	})
	e.exec(`SELECT pgmq.create('audited'), pgmq.create('doomed'), pgmq.create('purged')`)
	e.exec(`SELECT pgmq.send('audited', '{"n": 1}'), pgmq.send('audited', '{"n": 2}'), pgmq.send('purged', '{"n": 3}')`)
	e.exec(`CREATE TRIGGER hook_keep AFTER INSERT ON public.t FOR EACH ROW EXECUTE FUNCTION supabase_functions.http_request('http://127.0.0.1:9/keep', 'POST', '{}', '{}', '1000')`)
	e.exec(`CREATE TRIGGER hook_drop AFTER DELETE ON public.t FOR EACH ROW EXECUTE FUNCTION supabase_functions.http_request('http://127.0.0.1:9/drop', 'POST', '{}', '{}', '1000')`)
	hook := func(name string) string {
		var id int64
		if err := e.db.Admin.QueryRow(context.Background(), `SELECT oid::int8 FROM pg_trigger WHERE tgname = $1`, name).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return strconv.FormatInt(id, 10)
	}
	// Roles belong to the cluster every test shares: named after the database.
	role := func(suffix string) string { return e.db.Name + "_" + suffix }
	e.exec(`CREATE ROLE ` + role("keep") + ` NOLOGIN; CREATE ROLE ` + role("drop") + ` NOLOGIN`)
	t.Cleanup(func() {
		for _, r := range []string{"new", "keep", "drop"} {
			_, _ = e.db.Admin.Exec(context.Background(), `DROP ROLE IF EXISTS `+role(r))
		}
	})
	roleID := func(name string) string {
		var id int64
		if err := e.db.Admin.QueryRow(context.Background(), `SELECT oid::int8 FROM pg_roles WHERE rolname = $1`, name).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return strconv.FormatInt(id, 10)
	}
	e.exec(`CREATE PUBLICATION pub_keep FOR TABLE public.t; CREATE PUBLICATION pub_drop`)
	pubID := func(name string) string {
		var id int64
		if err := e.db.Admin.QueryRow(context.Background(), `SELECT oid::int8 FROM pg_publication WHERE pubname = $1`, name).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return strconv.FormatInt(id, 10)
	}
	return map[string]writeCall{
		"POST /pg/roles":                                {"/pg/roles", map[string]any{"name": role("new"), "can_login": true, "password": "hunter2-hunter2"}},
		"PATCH /pg/roles/{id}":                          {"/pg/roles/" + roleID(role("keep")), map[string]any{"connection_limit": 3}},
		"DELETE /pg/roles/{id}":                         {"/pg/roles/" + roleID(role("drop")), nil},
		"POST /pg/publications":                         {"/pg/publications", map[string]any{"name": "pub_new", "tables": []string{"t"}}},
		"PATCH /pg/publications/{id}":                   {"/pg/publications/" + pubID("pub_keep"), map[string]any{"publish_delete": false}},
		"DELETE /pg/publications/{id}":                  {"/pg/publications/" + pubID("pub_drop"), nil},
		"POST /pg/extensions":                           {"/pg/extensions", map[string]any{"name": "pg_trgm"}},
		"DELETE /pg/extensions/{name}":                  {"/pg/extensions/citext", nil},
		"DELETE /api/database/replication-slots/{name}": {"/api/database/replication-slots/" + slotFor(e.db), nil},
		"POST /api/cron/jobs":                           {"/api/cron/jobs", map[string]any{"jobname": "nightly", "schedule": "0 3 * * *", "command": "select 1"}},
		"PATCH /api/cron/jobs/{id}":                     {"/api/cron/jobs/1", map[string]any{"active": false}},
		"DELETE /api/cron/jobs/{id}":                    {"/api/cron/jobs/1", nil},
		"POST /api/database/backups":                    {"/api/database/backups", nil},
		"POST /api/database/backups/{name}/restore":     {"/api/database/backups/b1/restore", map[string]any{"database": "restored"}},
		"POST /api/queues":                              {"/api/queues", map[string]any{"queue_name": "fresh"}},
		"DELETE /api/queues/{name}":                     {"/api/queues/doomed", nil},
		"POST /api/queues/{name}/purge":                 {"/api/queues/purged/purge", nil},
		"POST /api/queues/{name}/messages":              {"/api/queues/audited/messages", map[string]any{"message": map[string]any{"n": 4}}},
		"POST /api/queues/{name}/messages/{id}/archive": {"/api/queues/audited/messages/1/archive", nil},
		"DELETE /api/queues/{name}/messages/{id}":       {"/api/queues/audited/messages/2", nil},
		"POST /api/webhooks":                            {"/api/webhooks", map[string]any{"name": "hook_new", "table": "t", "events": []string{"UPDATE"}, "url": "http://127.0.0.1:9/new"}},
		"PATCH /api/webhooks/{id}":                      {"/api/webhooks/" + hook("hook_keep"), map[string]any{"enabled": false}},
		"DELETE /api/webhooks/{id}":                     {"/api/webhooks/" + hook("hook_drop"), nil},
	}
}

// auditTrail is "action status target" of the test operator's audit rows
// whose action starts with prefix, oldest first, joined by "|".
func auditTrail(t *testing.T, e *env, prefix string) string {
	t.Helper()
	var trail *string
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT string_agg(action || ' ' || status || ' ' || target, '|' ORDER BY id)
		FROM basalt.studio_audit WHERE starts_with(action, $1) AND actor = $2`, prefix, testEmail).Scan(&trail); err != nil {
		t.Fatal(err)
	}
	if trail == nil {
		return ""
	}
	return *trail
}

// TestMigrationsScreen: what `basalt migrate status` says, as JSON: the
// platform's migrations applied, the project's pending until applied.
func TestMigrationsScreen(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	type status struct {
		Pending    int
		Sources    []string
		Migrations []struct {
			Source, Name, Status string
			AppliedAt            *string `json:"applied_at"`
			HasDown              bool    `json:"has_down"`
		}
	}
	var st status
	c.json("GET", "/api/database/migrations", nil, 200, &st)
	if st.Pending != 1 || strings.Join(st.Sources, ",") != "platform,app" {
		t.Fatalf("pending %d, sources %v", st.Pending, st.Sources)
	}
	seen := map[string]string{}
	for _, m := range st.Migrations {
		seen[m.Source+"/"+m.Name] = m.Status
		if m.Source == "platform" && (m.Status != "applied" || m.AppliedAt == nil) {
			t.Errorf("platform %s: %s", m.Name, m.Status)
		}
	}
	if seen["platform/0017_studio.sql"] != "applied" || seen["app/0001_widgets.sql"] != "pending" {
		t.Fatalf("statuses %v", seen)
	}
	if _, err := migrate.Up(context.Background(), e.db.Admin, nil, testApp); err != nil {
		t.Fatal(err)
	}
	c.json("GET", "/api/database/migrations", nil, 200, &st)
	for _, m := range st.Migrations {
		if m.Name == "0001_widgets.sql" && (m.Status != "applied" || !m.HasDown) {
			t.Fatalf("after up: %+v", m)
		}
	}
	if st.Pending != 0 {
		t.Fatalf("after up: %d pending", st.Pending)
	}
}

// TestDatabaseCatalogs: functions and publications in postgres-meta's
// shapes, replication slots with the WAL they hold, roles.
func TestDatabaseCatalogs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	e.exec(`CREATE TABLE public.items (id int PRIMARY KEY)`)
	e.exec(`CREATE FUNCTION public.add_one(n int) RETURNS int LANGUAGE sql IMMUTABLE AS 'select n + 1'`)
	e.exec(`CREATE PUBLICATION studio_pub FOR TABLE public.items WITH (publish = 'insert, update')`)

	var fns []struct {
		Schema, Name, Language, Behavior, Definition string
		ArgumentTypes                                string `json:"argument_types"`
		ReturnType                                   string `json:"return_type"`
		CompleteStatement                            string `json:"complete_statement"`
		SecurityDefiner                              bool   `json:"security_definer"`
	}
	c.json("GET", "/pg/functions?included_schemas=public", nil, 200, &fns)
	if len(fns) != 1 || fns[0].Name != "add_one" || fns[0].ArgumentTypes != "n integer" || fns[0].ReturnType != "integer" ||
		fns[0].Behavior != "IMMUTABLE" || fns[0].Language != "sql" || !strings.Contains(fns[0].CompleteStatement, "CREATE OR REPLACE FUNCTION public.add_one") {
		t.Fatalf("functions: %+v", fns)
	}
	// pg_catalog's are left out unless asked for.
	var all []struct{ Schema string }
	c.json("GET", "/pg/functions", nil, 200, &all)
	for _, f := range all {
		if f.Schema == "pg_catalog" {
			t.Fatal("pg_catalog functions listed without include_system_schemas")
		}
	}

	var pubs []struct {
		Name          string
		PublishInsert bool `json:"publish_insert"`
		PublishDelete bool `json:"publish_delete"`
		Tables        *[]struct{ Name, Schema string }
	}
	c.json("GET", "/pg/publications", nil, 200, &pubs)
	found := false
	for _, p := range pubs {
		if p.Name == "studio_pub" {
			found = true
			if !p.PublishInsert || p.PublishDelete || p.Tables == nil || len(*p.Tables) != 1 || (*p.Tables)[0].Name != "items" {
				t.Fatalf("publication: %+v", p)
			}
		}
	}
	if !found {
		t.Fatalf("publications: %+v", pubs)
	}

	slot := slotFor(e.db)
	e.exec(`SELECT pg_create_physical_replication_slot($1, true)`, slot)
	var slots []struct {
		Name          string
		Type          string
		Active        bool
		RetainedBytes *int64 `json:"retained_bytes"`
	}
	c.json("GET", "/api/database/replication-slots", nil, 200, &slots)
	got := false
	for _, s := range slots {
		if s.Name == slot {
			got = s.Type == "physical" && !s.Active && s.RetainedBytes != nil
		}
	}
	if !got {
		t.Fatalf("slot %s not listed as an inactive physical slot with its WAL: %+v", slot, slots)
	}
	c.json("DELETE", "/api/database/replication-slots/"+slot, nil, 200, nil)
	c.json("DELETE", "/api/database/replication-slots/"+slot, nil, 404, nil)
	c.json("DELETE", "/api/database/replication-slots/Robert'); DROP TABLE items; --", nil, 404, nil)

	var roles []struct{ Name string }
	c.json("GET", "/pg/roles", nil, 200, &roles)
	names := map[string]bool{}
	for _, r := range roles {
		names[r.Name] = true
	}
	if !names["anon"] || !names["authenticated"] || !names["service_role"] {
		t.Fatalf("roles: %v", names)
	}
}

// TestExtensionsEnableDisable: postgres-meta's POST and DELETE
// /pg/extensions; a drop that would take other objects with it is refused
// unless cascade=true, and changes nothing.
func TestExtensionsEnableDisable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	var ext struct {
		Name             string
		Schema           *string
		InstalledVersion *string `json:"installed_version"`
	}
	c.json("POST", "/pg/extensions", map[string]any{"name": "citext", "schema": "no_such_schema"}, 400, nil)
	c.json("POST", "/pg/extensions", map[string]any{"name": "citext"}, 200, &ext)
	if ext.Name != "citext" || ext.InstalledVersion == nil || ext.Schema == nil || *ext.Schema != "public" {
		t.Fatalf("enabled: %+v", ext)
	}
	c.json("POST", "/pg/extensions", map[string]any{"name": "citext"}, 400, nil) // already there
	c.json("POST", "/pg/extensions", map[string]any{"name": "no_such_thing"}, 404, nil)
	e.exec(`CREATE TABLE public.people (email citext)`)
	res := c.do("DELETE", "/pg/extensions/citext", nil)
	if body := readAll(t, res); res.StatusCode != 400 || !strings.Contains(body, "depend") {
		t.Fatalf("drop with a dependent column: %d %s", res.StatusCode, body)
	}
	var still bool
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'citext')`).Scan(&still); err != nil || !still {
		t.Fatalf("the refused drop dropped citext (%v)", err)
	}
	c.json("DELETE", "/pg/extensions/citext?cascade=true", nil, 200, &ext)
	if ext.InstalledVersion == nil {
		t.Fatalf("the answer is the extension as it was: %+v", ext)
	}
	c.json("DELETE", "/pg/extensions/citext", nil, 400, nil)
	var list []struct {
		Name             string
		InstalledVersion *string `json:"installed_version"`
	}
	c.json("GET", "/pg/extensions", nil, 200, &list)
	for _, x := range list {
		if x.Name == "citext" && x.InstalledVersion != nil {
			t.Fatal("citext still installed")
		}
	}
	want := "extension.enable 400 extension citext|extension.enable 200 extension citext|extension.enable 400 extension citext|" +
		"extension.enable 404 extension no_such_thing|extension.disable 400 extension citext|extension.disable 200 extension citext|extension.disable 400 extension citext"
	if got := auditTrail(t, e, "extension."); got != want {
		t.Fatalf("audit:\n got %s\nwant %s", got, want)
	}
}

// TestCronOff: where pg_cron does not run, the screen says why and how to
// turn it on, and writes are refused with that sentence.
func TestCronOff(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	var st struct {
		Status struct {
			Enabled bool
			Problem string
		}
		Jobs []any
	}
	c.json("GET", "/api/cron", nil, 200, &st)
	if st.Status.Enabled || !strings.Contains(st.Status.Problem, "cron.database_name") || len(st.Jobs) != 0 {
		t.Fatalf("cron off: %+v", st)
	}
	res := c.do("POST", "/api/cron/jobs", map[string]any{"jobname": "x", "schedule": "* * * * *", "command": "select 1"})
	if body := readAll(t, res); res.StatusCode != 400 || !strings.Contains(body, "Cron is off: ") {
		t.Fatalf("schedule without pg_cron: %d %s", res.StatusCode, body)
	}
}

// TestCronJobs: schedule, list, alter, run history and unschedule through
// pg_cron in the database it serves; every write audited.
func TestCronJobs(t *testing.T) {
	db := pgtest.CronDB(t)
	e := newEnvOn(t, db, nil)
	c := e.signIn(testEmail, testPassword)
	ctx := context.Background()
	t.Cleanup(func() {
		_, _ = db.Admin.Exec(ctx, `SELECT cron.unschedule(jobid) FROM cron.job WHERE jobname LIKE 'studio_%'`)
		_, _ = db.Admin.Exec(ctx, `DELETE FROM cron.job_run_details WHERE NOT EXISTS (SELECT FROM cron.job j WHERE j.jobid = job_run_details.jobid)`)
		_, _ = db.Admin.Exec(ctx, `DELETE FROM basalt.studio_operators WHERE email = $1`, testEmail)
		_, _ = db.Admin.Exec(ctx, `DELETE FROM basalt.studio_audit WHERE actor = $1`, testEmail)
	})
	type job struct {
		JobID      int64 `json:"jobid"`
		JobName    string
		Schedule   string
		Command    string
		Active     bool
		LastRun    *struct{ Status string } `json:"last_run"`
		FailedRuns int                      `json:"failed_runs"`
	}
	var created job
	c.json("POST", "/api/cron/jobs", map[string]any{"jobname": "studio_nightly", "schedule": "0 3 * * *", "command": "select 1"}, 200, &created)
	if created.JobID == 0 || created.Schedule != "0 3 * * *" || !created.Active {
		t.Fatalf("created %+v", created)
	}
	res := c.do("POST", "/api/cron/jobs", map[string]any{"jobname": "studio_bad", "schedule": "every now and then", "command": "select 1"})
	if body := readAll(t, res); res.StatusCode != 400 || !strings.Contains(body, "invalid schedule") {
		t.Fatalf("bad schedule: %d %s", res.StatusCode, body)
	}
	var list struct {
		Status struct{ Enabled bool }
		Jobs   []job
	}
	c.json("GET", "/api/cron", nil, 200, &list)
	if !list.Status.Enabled || len(list.Jobs) != 1 || list.Jobs[0].JobName != "studio_nightly" || list.Jobs[0].LastRun != nil {
		t.Fatalf("list %+v", list)
	}
	var altered job
	path := "/api/cron/jobs/" + strconv.FormatInt(created.JobID, 10)
	c.json("PATCH", path, map[string]any{"schedule": "*/5 * * * *", "active": false}, 200, &altered)
	if altered.Schedule != "*/5 * * * *" || altered.Active || altered.Command != "select 1" {
		t.Fatalf("altered %+v", altered)
	}
	c.json("PATCH", path, map[string]any{"jobname": "renamed"}, 400, nil)

	// pg_cron writes the run history; two runs stand in for a minute's wait.
	e.exec(`INSERT INTO cron.job_run_details (jobid, runid, job_pid, database, username, command, status, return_message, start_time, end_time)
		VALUES ($1::int8, $1::int8 * 1000 + 1, 1, current_database(), current_user, 'select 1', 'succeeded', 'SELECT 1', now() - interval '2 minutes', now() - interval '2 minutes'),
		       ($1::int8, $1::int8 * 1000 + 2, 2, current_database(), current_user, 'select 1', 'failed', 'ERROR: boom', now() - interval '1 minute', now() - interval '1 minute')`, created.JobID)
	var runs []struct {
		RunID         int64 `json:"runid"`
		Status        string
		ReturnMessage string `json:"return_message"`
	}
	c.json("GET", path+"/runs", nil, 200, &runs)
	if len(runs) != 2 || runs[0].RunID != created.JobID*1000+2 || runs[0].Status != "failed" || runs[0].ReturnMessage != "ERROR: boom" {
		t.Fatalf("runs %+v", runs)
	}
	c.json("GET", path+"/runs?status=succeeded", nil, 200, &runs)
	if len(runs) != 1 || runs[0].RunID != created.JobID*1000+1 {
		t.Fatalf("succeeded runs %+v", runs)
	}
	c.json("GET", path+"/runs?limit=0", nil, 400, nil)
	c.json("GET", "/api/cron", nil, 200, &list)
	if list.Jobs[0].LastRun == nil || list.Jobs[0].LastRun.Status != "failed" || list.Jobs[0].FailedRuns != 1 {
		t.Fatalf("last run %+v", list.Jobs[0].LastRun)
	}

	c.json("DELETE", path, nil, 200, nil)
	c.json("DELETE", path, nil, 404, nil)
	var n int
	if err := db.Admin.QueryRow(ctx, `SELECT count(*) FROM cron.job WHERE jobname LIKE 'studio_%'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d jobs left (%v)", n, err)
	}
	audit := auditTrail(t, e, "cron.")
	want := strings.ReplaceAll("cron.schedule 200 cron job ID studio_nightly|cron.schedule 400 cron job studio_bad|cron.alter 200 cron job ID studio_nightly|"+
		"cron.alter 400 cron job ID|cron.unschedule 200 cron job ID studio_nightly|cron.unschedule 404 cron job ID", "ID", strconv.FormatInt(created.JobID, 10))
	if audit != want {
		t.Fatalf("audit %s, want %s", audit, want)
	}
}

// TestQueuesScreen: create, depth and age, peek without reading, send,
// archive and delete once each, purge, drop.
func TestQueuesScreen(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	ctx := context.Background()
	c.json("POST", "/api/queues", map[string]any{"queue_name": "Emails"}, 201, nil)
	c.json("POST", "/api/queues", map[string]any{"queue_name": "emails"}, 409, nil)
	res := c.do("POST", "/api/queues", map[string]any{"queue_name": "bad name; drop table x"})
	if body := readAll(t, res); res.StatusCode != 400 || !strings.Contains(body, "invalid queue name") {
		t.Fatalf("bad name: %d %s", res.StatusCode, body)
	}
	for i := 1; i <= 3; i++ {
		var sent struct {
			MsgID int64 `json:"msg_id"`
		}
		c.json("POST", "/api/queues/emails/messages", map[string]any{"message": map[string]any{"to": "a@example.com", "n": i}}, 201, &sent)
		if sent.MsgID != int64(i) {
			t.Fatalf("message %d got id %d", i, sent.MsgID)
		}
	}
	c.json("POST", "/api/queues/emails/messages", map[string]any{"message": "later", "delay": 3600}, 201, nil)
	c.json("POST", "/api/queues/emails/messages", map[string]any{}, 400, nil)
	c.json("POST", "/api/queues/nowhere/messages", map[string]any{"message": 1}, 404, nil)
	e.exec(`UPDATE pgmq.q_emails SET enqueued_at = now() - interval '90 seconds' WHERE msg_id = 1`)

	var queues []struct {
		QueueName     string `json:"queue_name"`
		Length        int64  `json:"queue_length"`
		Visible       int64  `json:"queue_visible_length"`
		OldestAgeSec  *int   `json:"oldest_msg_age_sec"`
		TotalMessages int64  `json:"total_messages"`
	}
	c.json("GET", "/api/queues", nil, 200, &queues)
	if len(queues) != 1 || queues[0].QueueName != "emails" || queues[0].Length != 4 || queues[0].Visible != 3 ||
		queues[0].OldestAgeSec == nil || *queues[0].OldestAgeSec < 90 || queues[0].TotalMessages != 4 {
		t.Fatalf("queues %+v", queues)
	}

	type msg struct {
		MsgID   int64 `json:"msg_id"`
		ReadCt  int   `json:"read_ct"`
		Visible bool
		Message json.RawMessage
	}
	var peek []msg
	c.json("GET", "/api/queues/emails/messages?limit=2", nil, 200, &peek)
	if len(peek) != 2 || peek[0].MsgID != 1 || peek[0].ReadCt != 0 || !peek[0].Visible || !strings.Contains(string(peek[0].Message), `"n": 1`) {
		t.Fatalf("peek %+v", peek)
	}
	var readCt int
	if err := e.db.Admin.QueryRow(ctx, `SELECT sum(read_ct) FROM pgmq.q_emails`).Scan(&readCt); err != nil || readCt != 0 {
		t.Fatalf("peeking read messages: read_ct %d (%v)", readCt, err)
	}
	c.json("GET", "/api/queues/emails/messages?offset=3", nil, 200, &peek)
	if len(peek) != 1 || peek[0].Visible {
		t.Fatalf("the delayed message: %+v", peek)
	}

	c.json("POST", "/api/queues/emails/messages/1/archive", nil, 200, nil)
	c.json("POST", "/api/queues/emails/messages/1/archive", nil, 404, nil)
	c.json("DELETE", "/api/queues/emails/messages/2", nil, 200, nil)
	c.json("DELETE", "/api/queues/emails/messages/2", nil, 404, nil)
	c.json("DELETE", "/api/queues/emails/messages/x", nil, 404, nil)
	var archived []struct {
		MsgID      int64   `json:"msg_id"`
		ArchivedAt *string `json:"archived_at"`
	}
	c.json("GET", "/api/queues/emails/messages?archive=true", nil, 200, &archived)
	if len(archived) != 1 || archived[0].MsgID != 1 || archived[0].ArchivedAt == nil {
		t.Fatalf("archive %+v", archived)
	}
	var purged struct{ Purged int64 }
	c.json("POST", "/api/queues/emails/purge", nil, 200, &purged)
	if purged.Purged != 2 {
		t.Fatalf("purged %d", purged.Purged)
	}
	c.json("DELETE", "/api/queues/emails", nil, 200, nil)
	c.json("DELETE", "/api/queues/emails", nil, 404, nil)
	var left bool
	if err := e.db.Admin.QueryRow(ctx, `SELECT to_regclass('pgmq.q_emails') IS NOT NULL OR to_regclass('pgmq.a_emails') IS NOT NULL`).Scan(&left); err != nil || left {
		t.Fatalf("the queue's tables are left (%v)", err)
	}
}

// TestWebhooksScreen: a webhook made here is Supabase's trigger: an INSERT
// queues a POST with Supabase's payload, the firing is listed with its
// request's state as the sender records it; pause, resume, delete; bad
// input changes nothing.
func TestWebhooksScreen(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	ctx := context.Background()
	e.exec(`CREATE TABLE public.orders (id int PRIMARY KEY, total int)`)
	body := map[string]any{"name": "order placed", "table": "orders", "events": []string{"INSERT", "update"},
		"url": "http://127.0.0.1:9/hooks/orders", "headers": map[string]string{"Content-Type": "application/json", "X-Secret-Word": "open", "Authorization": "Bearer hook-credential"}, "timeout_ms": 2500}
	type hook struct {
		ID        int64 `json:"id"`
		Name      string
		Table     string
		Events    []string
		URL       string
		Method    string
		Headers   map[string]string
		TimeoutMS int  `json:"timeout_ms"`
		Enabled   bool `json:"enabled"`
		Fired     int  `json:"fired"`
	}
	var h hook
	c.json("POST", "/api/webhooks", body, 201, &h)
	if h.Name != "order placed" || h.Table != "orders" || strings.Join(h.Events, ",") != "INSERT,UPDATE" || h.Method != "POST" ||
		h.Headers["X-Secret-Word"] != "open" || h.TimeoutMS != 2500 || !h.Enabled {
		t.Fatalf("created %+v", h)
	}
	// The audit log keeps the call, not the credential it carries.
	var leaked int
	if err := e.db.Admin.QueryRow(ctx, `SELECT count(*) FROM basalt.studio_audit WHERE detail::text LIKE '%hook-credential%'`).Scan(&leaked); err != nil || leaked != 0 {
		t.Fatalf("the audit log kept a webhook's Authorization header (%d rows, %v)", leaked, err)
	}
	for _, bad := range []map[string]any{
		{"name": "x", "table": "orders", "events": []string{"TRUNCATE"}, "url": "http://127.0.0.1:9/"},
		{"name": "x", "table": "orders", "events": []string{"INSERT"}, "url": "ftp://127.0.0.1/"},
		{"name": "x", "table": "orders", "events": []string{"INSERT"}, "url": "http://127.0.0.1:9/", "method": "PUT"},
		{"name": "x", "table": "orders", "events": []string{"INSERT"}, "url": "http://127.0.0.1:9/", "timeout_ms": 60000},
		{"name": `x"; drop table orders; --`, "table": "orders", "events": []string{"INSERT"}, "url": "http://127.0.0.1:9/"},
	} {
		c.json("POST", "/api/webhooks", bad, 400, nil)
	}
	c.json("POST", "/api/webhooks", map[string]any{"name": "x", "table": "nowhere", "events": []string{"INSERT"}, "url": "http://127.0.0.1:9/"}, 404, nil)
	c.json("POST", "/api/webhooks", body, 400, nil) // the name is taken on that table

	var list []hook
	c.json("GET", "/api/webhooks", nil, 200, &list)
	if len(list) != 1 || list[0].ID != h.ID {
		t.Fatalf("list %+v", list)
	}

	e.exec(`INSERT INTO public.orders VALUES (1, 100)`)
	var payload struct {
		Type, Table, Schema string
		Record              map[string]any
		OldRecord           map[string]any `json:"old_record"`
	}
	var raw []byte
	var url string
	if err := e.db.Admin.QueryRow(ctx, `SELECT url, body FROM net.http_request_queue ORDER BY id DESC LIMIT 1`).Scan(&url, &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &payload); err != nil || url != "http://127.0.0.1:9/hooks/orders" || payload.Type != "INSERT" ||
		payload.Table != "orders" || payload.Schema != "public" || payload.Record["total"] != float64(100) || payload.OldRecord != nil {
		t.Fatalf("queued %s %s (%v)", url, raw, err)
	}
	type delivery struct {
		HookName   string `json:"hook_name"`
		Table      string
		State      string
		StatusCode *int `json:"status_code"`
		URL        *string
		RequestID  int64 `json:"request_id"`
	}
	var ds []delivery
	c.json("GET", "/api/webhooks/deliveries?id="+strconv.FormatInt(h.ID, 10), nil, 200, &ds)
	if len(ds) != 1 || ds[0].State != "pending" || ds[0].HookName != "order placed" || ds[0].Table != "orders" || ds[0].URL == nil {
		t.Fatalf("deliveries %+v", ds)
	}
	// What the sender does once the receiver answered.
	e.exec(`DELETE FROM net.http_request_queue WHERE id = $1`, ds[0].RequestID)
	e.exec(`INSERT INTO net._http_response (id, status_code, content) VALUES ($1, 500, 'no')`, ds[0].RequestID)
	e.exec(`UPDATE public.orders SET total = 120 WHERE id = 1`)
	c.json("GET", "/api/webhooks/deliveries", nil, 200, &ds)
	if len(ds) != 2 || ds[0].State != "pending" || ds[1].State != "failed" || ds[1].StatusCode == nil || *ds[1].StatusCode != 500 {
		t.Fatalf("deliveries %+v", ds)
	}
	e.exec(`DELETE FROM net.http_request_queue WHERE id = $1`, ds[0].RequestID)
	e.exec(`INSERT INTO net._http_response (id, status_code) VALUES ($1, 204)`, ds[0].RequestID)
	c.json("GET", "/api/webhooks/deliveries?limit=1", nil, 200, &ds)
	if len(ds) != 1 || ds[0].State != "delivered" {
		t.Fatalf("deliveries %+v", ds)
	}

	// Paused, it does not fire; resumed, it does.
	path := "/api/webhooks/" + strconv.FormatInt(h.ID, 10)
	c.json("PATCH", path, map[string]any{"enabled": false}, 200, &h)
	if h.Enabled {
		t.Fatal("still enabled")
	}
	e.exec(`INSERT INTO public.orders VALUES (2, 5)`)
	c.json("PATCH", path, map[string]any{"enabled": true}, 200, &h)
	e.exec(`INSERT INTO public.orders VALUES (3, 5)`)
	var fired int
	if err := e.db.Admin.QueryRow(ctx, `SELECT count(*) FROM supabase_functions.hooks`).Scan(&fired); err != nil || fired != 3 {
		t.Fatalf("fired %d times (%v), want 3", fired, err)
	}

	// Edited in place: the same id, the new URL, events, headers and
	// time-out; the credential in a header stays out of the audit log.
	var edited hook
	c.json("PATCH", path, map[string]any{"url": "http://127.0.0.1:9/hooks/v2", "events": []string{"DELETE"},
		"headers": map[string]string{"Authorization": "Bearer new-credential", "X-Api-Key": "new-credential", "X-Team": "a"}, "timeout_ms": 900}, 200, &edited)
	if edited.ID != h.ID || edited.URL != "http://127.0.0.1:9/hooks/v2" || strings.Join(edited.Events, ",") != "DELETE" ||
		edited.Headers["X-Team"] != "a" || edited.Headers["Authorization"] != "Bearer new-credential" || edited.TimeoutMS != 900 ||
		!edited.Enabled || edited.Method != "POST" || edited.Name != "order placed" {
		t.Fatalf("edited %+v", edited)
	}
	if err := e.db.Admin.QueryRow(ctx, `SELECT count(*) FROM basalt.studio_audit WHERE detail::text LIKE '%new-credential%'`).Scan(&leaked); err != nil || leaked != 0 {
		t.Fatalf("the audit log kept the edited Authorization header (%d rows, %v)", leaked, err)
	}
	var audited int
	if err := e.db.Admin.QueryRow(ctx, `SELECT count(*) FROM basalt.studio_audit WHERE action = 'webhook.update' AND status = 200 AND detail::text LIKE '%hooks/v2%'`).Scan(&audited); err != nil || audited != 1 {
		t.Fatalf("the edit's audit rows: %d (%v)", audited, err)
	}
	e.exec(`INSERT INTO public.orders VALUES (4, 5)`) // no longer an event
	e.exec(`DELETE FROM public.orders WHERE id = 4`)
	if err := e.db.Admin.QueryRow(ctx, `SELECT count(*) FROM supabase_functions.hooks`).Scan(&fired); err != nil || fired != 4 {
		t.Fatalf("fired %d times (%v), want 4", fired, err)
	}
	var sentTo string
	var sentHeaders map[string]string
	var timeout int
	if err := e.db.Admin.QueryRow(ctx, `SELECT url, headers, timeout_milliseconds FROM net.http_request_queue ORDER BY id DESC LIMIT 1`).Scan(&sentTo, &sentHeaders, &timeout); err != nil ||
		sentTo != "http://127.0.0.1:9/hooks/v2" || sentHeaders["X-Team"] != "a" || timeout != 900 {
		t.Fatalf("queued to %s %v in %d ms (%v)", sentTo, sentHeaders, timeout, err)
	}
	// A paused webhook stays paused when edited.
	c.json("PATCH", path, map[string]any{"enabled": false}, 200, nil)
	c.json("PATCH", path, map[string]any{"timeout_ms": 1000}, 200, &edited)
	if edited.Enabled || edited.TimeoutMS != 1000 || edited.URL != "http://127.0.0.1:9/hooks/v2" {
		t.Fatalf("edited while paused %+v", edited)
	}
	// A bad edit changes nothing.
	for _, bad := range []map[string]any{{}, {"url": "ftp://elsewhere/"}, {"events": []string{}}, {"events": []string{"TRUNCATE"}},
		{"timeout_ms": 0}, {"method": "PUT"}} {
		c.json("PATCH", path, bad, 400, nil)
	}
	c.json("GET", "/api/webhooks", nil, 200, &list)
	if len(list) != 1 || list[0].TimeoutMS != 1000 || strings.Join(list[0].Events, ",") != "DELETE" || list[0].URL != "http://127.0.0.1:9/hooks/v2" {
		t.Fatalf("after bad edits %+v", list)
	}
	c.json("PATCH", "/api/webhooks/1", map[string]any{"url": "http://127.0.0.1:9/"}, 404, nil)

	c.json("DELETE", path, nil, 200, nil)
	c.json("DELETE", path, nil, 404, nil)
	c.json("GET", "/api/webhooks", nil, 200, &list)
	if len(list) != 0 {
		t.Fatalf("left %+v", list)
	}
	var rows int
	if err := e.db.Admin.QueryRow(ctx, `SELECT count(*) FROM public.orders`).Scan(&rows); err != nil || rows != 3 {
		t.Fatalf("orders: %d (%v)", rows, err)
	}
}
