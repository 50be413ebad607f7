package studio

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// runLine is one NDJSON line of POST /api/sql.
type runLine struct {
	Type      string           `json:"type"`
	Index     int              `json:"index"`
	Columns   []map[string]any `json:"columns"`
	Rows      [][]*string      `json:"rows"`
	Command   string           `json:"command"`
	Truncated bool             `json:"truncated"`
	Notice    string           `json:"notice"`
	Error     map[string]any   `json:"error"`
}

// run calls POST /api/sql and reads every line.
func run(t *testing.T, c *client, body map[string]any) []runLine {
	t.Helper()
	res := c.do("POST", "/api/sql", body)
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("run %v: %d %s", body, res.StatusCode, readAll(t, res))
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Fatalf("content type %q", ct)
	}
	var out []runLine
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l runLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	if len(out) < 2 || out[0].Type != "start" || out[len(out)-1].Type != "done" {
		t.Fatalf("run lines: %+v", out)
	}
	return out
}

func values(lines []runLine) [][]string {
	var out [][]string
	for _, l := range lines {
		for _, r := range l.Rows {
			var row []string
			for _, v := range r {
				if v == nil {
					row = append(row, "NULL")
				} else {
					row = append(row, *v)
				}
			}
			out = append(out, row)
		}
	}
	return out
}

func errorOf(lines []runLine) map[string]any {
	for _, l := range lines {
		if l.Type == "error" {
			return l.Error
		}
	}
	return nil
}

func TestRunSQL(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	lines := run(t, c, map[string]any{"query": "select 1+1 as two, null::text as n; create temp table x (a int); select 'b'::text as s"})
	if got := fmt.Sprint(values(lines)); got != "[[2 NULL] [b]]" {
		t.Errorf("values %s", got)
	}
	var cmds, types []string
	for _, l := range lines {
		if l.Type == "end" {
			cmds = append(cmds, l.Command)
		}
		if l.Type == "result" {
			for _, col := range l.Columns {
				types = append(types, fmt.Sprint(col["name"], ":", col["type"]))
			}
		}
	}
	if fmt.Sprint(cmds) != "[SELECT 1 CREATE TABLE SELECT 1]" || fmt.Sprint(types) != "[two:int4 n:text s:text]" {
		t.Errorf("commands %v, types %v", cmds, types)
	}

	// An error names its line and column in the operator's text.
	lines = run(t, c, map[string]any{"query": "select 1;\nselect\n  nope + 1 from pg_class"})
	perr := errorOf(lines)
	if perr == nil || perr["code"] != "42703" || perr["line"] != float64(3) || perr["column"] != float64(3) ||
		!strings.Contains(perr["error"].(string), "LINE 3:   nope + 1 from pg_class\n          ^") {
		t.Errorf("error: %v", perr)
	}
	// EXPLAIN's position counts in the operator's text too.
	lines = run(t, c, map[string]any{"query": "select nope", "explain": "plan"})
	if perr := errorOf(lines); perr == nil || perr["column"] != float64(8) {
		t.Errorf("explain error: %v", perr)
	}

	// A run's session settings die with its connection.
	run(t, c, map[string]any{"query": "set role anon; set search_path = nothing; begin; select 1"})
	if got := fmt.Sprint(values(run(t, c, map[string]any{"query": "select current_user, current_setting('search_path')"}))); got != `[[postgres "$user", public]]` {
		t.Errorf("next run sees %s", got)
	}

	// History keeps every run, newest first, with its outcome.
	var hist []map[string]any
	c.json("GET", "/api/sql/history", nil, 200, &hist)
	if len(hist) != 5 || hist[0]["sql"] != "select current_user, current_setting('search_path')" || hist[3]["error"] == nil {
		t.Errorf("history: %v", hist)
	}
}

func TestRunSQLLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.RowCap = 1000 })
	c := e.signIn(testEmail, testPassword)

	// Past the row cap the statement is cancelled, not read to its end.
	start := time.Now()
	lines := run(t, c, map[string]any{"query": "select generate_series(1, 100000000) as g, repeat('x', 100)"})
	took := time.Since(start)
	var notice string
	var ended runLine
	for _, l := range lines {
		if l.Type == "done" {
			notice = l.Notice
		}
		if l.Type == "end" {
			ended = l
		}
	}
	if n := len(values(lines)); n != 1000 || !ended.Truncated || !strings.Contains(notice, "stopped after 1000 rows") || took > 20*time.Second {
		t.Errorf("capped run: %d rows, truncated %v, notice %q, %s", n, ended.Truncated, notice, took)
	}

	// The statement timeout ends a slow query with a sentence saying so.
	lines = run(t, c, map[string]any{"query": "select pg_sleep(10)", "timeout_ms": 300})
	if perr := errorOf(lines); perr == nil || perr["code"] != "57014" || !strings.Contains(perr["error"].(string), "statement timeout") {
		t.Errorf("timeout: %v", perr)
	}

	// A 50 MB paste is refused with a clear message.
	big := strings.Repeat("select 1; -- padding padding padding\n", 50<<20/37)
	res := c.do("POST", "/api/sql", map[string]any{"query": big})
	if body := readAll(t, res); res.StatusCode != 413 || !strings.Contains(body, "Studio runs at most 1.0 MB of SQL at once") {
		t.Errorf("50 MB: %d %.200s", res.StatusCode, body)
	}
	for _, q := range []string{"", "   "} {
		if res := c.do("POST", "/api/sql", map[string]any{"query": q}); res.StatusCode != 400 {
			t.Errorf("empty query %q: %d", q, res.StatusCode)
		}
	}
	if res := c.do("POST", "/api/sql", map[string]any{"query": "select 1", "run_id": "'; drop"}); res.StatusCode != 400 {
		t.Errorf("bad run id: %d", res.StatusCode)
	}

	// Big values are cut in the grid.
	lines = run(t, c, map[string]any{"query": "select repeat('y', 200000)"})
	if v := values(lines)[0][0]; len(v) > maxCellBytes+100 || !strings.Contains(v, "(200000 bytes in all)") {
		t.Errorf("big value: %d bytes", len(v))
	}
}

// TestCancelSQL: a running query is cancelled by its run id.
func TestCancelSQL(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	id := "11111111-2222-4333-8444-555555555555"
	done := make(chan []runLine, 1)
	go func() {
		done <- run(t, c, map[string]any{"query": "select pg_sleep(30)", "run_id": id, "timeout_ms": 60000})
	}()
	// Wait until the query runs.
	deadline := time.Now().Add(20 * time.Second)
	for {
		var n int
		_ = e.db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'`, runAppName(id)).Scan(&n)
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the query never ran")
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	var ans map[string]any
	c.json("POST", "/api/sql/cancel", map[string]any{"run_id": id}, http.StatusOK, &ans)
	if ans["cancelled"] != true {
		t.Fatalf("cancel: %v", ans)
	}
	select {
	case lines := <-done:
		if perr := errorOf(lines); perr == nil || perr["code"] != "57014" {
			t.Errorf("cancelled run: %v", perr)
		}
		if time.Since(start) > 10*time.Second {
			t.Errorf("cancel took %s", time.Since(start))
		}
	case <-time.After(25 * time.Second):
		t.Fatal("the run did not end after the cancel")
	}
	c.json("POST", "/api/sql/cancel", map[string]any{"run_id": id}, http.StatusOK, &ans)
	if ans["cancelled"] != false {
		t.Errorf("second cancel: %v", ans)
	}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.exec(`CREATE TABLE public.t (id int PRIMARY KEY, v int)`)
	c := e.signIn(testEmail, testPassword)
	lines := run(t, c, map[string]any{"query": "select * from public.t where id = 1;", "explain": "plan"})
	var plan []map[string]any
	if err := json.Unmarshal([]byte(values(lines)[0][0]), &plan); err != nil || plan[0]["Plan"] == nil {
		t.Fatalf("plan: %v %v", plan, err)
	}
	if nt := plan[0]["Plan"].(map[string]any)["Node Type"]; nt != "Index Scan" && nt != "Bitmap Heap Scan" && nt != "Seq Scan" {
		t.Errorf("node type %v", nt)
	}
	// EXPLAIN ANALYZE runs the statement, and rolls its writes back.
	lines = run(t, c, map[string]any{"query": "insert into public.t values (1, 1)", "explain": "analyze"})
	if err := json.Unmarshal([]byte(values(lines)[0][0]), &plan); err != nil || plan[0]["Execution Time"] == nil {
		t.Fatalf("analyze: %v %v", plan, err)
	}
	var n int
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM public.t`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("EXPLAIN ANALYZE left %d rows", n)
	}
	if res := c.do("POST", "/api/sql", map[string]any{"query": "select 1", "explain": "costs"}); res.StatusCode != 400 {
		t.Errorf("explain=costs: %d", res.StatusCode)
	}
}

// TestSnippets: saved snippets are the operator's own.
func TestSnippets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.SignInMax = 100 })
	if _, err := AddOperator(context.Background(), e.db.Admin, "other@example.com", testPassword); err != nil {
		t.Fatal(err)
	}
	c := e.signIn(testEmail, testPassword)
	other := e.signIn("other@example.com", testPassword)
	var s map[string]any
	c.json("POST", "/api/snippets", map[string]any{"name": "top tracks", "sql": "select 1"}, 201, &s)
	id := s["id"].(string)
	c.json("PATCH", "/api/snippets/"+id, map[string]any{"sql": "select 2"}, 200, &s)
	if s["name"] != "top tracks" || s["sql"] != "select 2" {
		t.Errorf("patched: %v", s)
	}
	var list []map[string]any
	other.json("GET", "/api/snippets", nil, 200, &list)
	if len(list) != 0 {
		t.Errorf("another operator sees %v", list)
	}
	if res := other.do("DELETE", "/api/snippets/"+id, nil); res.StatusCode != 404 {
		t.Errorf("another operator deleted it: %d", res.StatusCode)
	}
	for _, bad := range []map[string]any{{"name": "", "sql": "x"}, {"name": "x"}, {"name": strings.Repeat("n", 201), "sql": "x"}} {
		if res := c.do("POST", "/api/snippets", bad); res.StatusCode != 400 {
			t.Errorf("snippet %v: %d", bad, res.StatusCode)
		}
	}
	c.json("DELETE", "/api/snippets/"+id, nil, 204, nil)
	c.json("GET", "/api/snippets", nil, 200, &list)
	if len(list) != 0 {
		t.Errorf("after delete: %v", list)
	}
}
