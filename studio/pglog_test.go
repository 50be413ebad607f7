package studio

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// TestPostgresLogShowsAFailedStatement: a statement that fails in the SQL
// editor shows up in Postgres's own log, read through SQL, with its
// SQLSTATE and text; the level and text filters select it, a time range
// after it hides it, and bad filters are refused.
func TestPostgresLogShowsAFailedStatement(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	marker := "no_such_table_" + strings.ReplaceAll(e.db.Name, "_", "")
	res := c.do("POST", "/pg/query", map[string]string{"query": "SELECT * FROM " + marker})
	readAll(t, res)
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("the failing query: %d", res.StatusCode)
	}
	type entry struct {
		Severity  string `json:"error_severity"`
		StateCode string `json:"state_code"`
		Message   string `json:"message"`
		Statement string `json:"statement"`
		Timestamp string `json:"timestamp"`
	}
	var ans struct {
		Available bool    `json:"available"`
		Reason    string  `json:"reason"`
		File      string  `json:"file"`
		Entries   []entry `json:"entries"`
	}
	// The collector writes the line a moment after the statement fails:
	// wait for it to be there.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.json("GET", "/api/logs/postgres?level=error&text="+marker, nil, http.StatusOK, &ans)
		if !ans.Available {
			t.Fatalf("the log is not available: %s", ans.Reason)
		}
		if len(ans.Entries) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(ans.Entries) != 1 {
		t.Fatalf("entries for %s: %+v", marker, ans.Entries)
	}
	got := ans.Entries[0]
	if got.Severity != "ERROR" || got.StateCode != "42P01" || !strings.Contains(got.Message, marker) || !strings.Contains(got.Statement, "SELECT * FROM "+marker) {
		t.Fatalf("entry %+v", got)
	}
	if !strings.HasSuffix(ans.File, ".json") {
		t.Errorf("file %q", ans.File)
	}
	// Above its level, or after it: not there.
	c.json("GET", "/api/logs/postgres?level=fatal&text="+marker, nil, http.StatusOK, &ans)
	if len(ans.Entries) != 0 {
		t.Errorf("level=fatal gave %+v", ans.Entries)
	}
	later := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	c.json("GET", "/api/logs/postgres?since="+later+"&text="+marker, nil, http.StatusOK, &ans)
	if len(ans.Entries) != 0 {
		t.Errorf("since=%s gave %+v", later, ans.Entries)
	}
	earlier := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	c.json("GET", "/api/logs/postgres?since="+earlier+"&text="+strings.ToUpper(marker), nil, http.StatusOK, &ans)
	if len(ans.Entries) != 1 {
		t.Errorf("since=%s, text in capitals: %+v", earlier, ans.Entries)
	}
	for _, q := range []string{"?level=loud", "?since=yesterday", "?limit=0", "?bytes=-1"} {
		c.json("GET", "/api/logs/postgres"+q, nil, http.StatusBadRequest, nil)
	}
}

// TestPostgresLogBounded: a read takes only the tail it is given and at
// most limit lines.
func TestPostgresLogBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	for i := 0; i < 3; i++ {
		readAll(t, c.do("POST", "/pg/query", map[string]string{"query": "SELECT * FROM bounded_" + e.db.Name}))
	}
	var ans struct {
		Entries   []json.RawMessage `json:"entries"`
		Truncated bool              `json:"truncated"`
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.json("GET", "/api/logs/postgres?limit=2&text=bounded_"+e.db.Name, nil, http.StatusOK, &ans)
		if len(ans.Entries) == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(ans.Entries) != 2 {
		t.Fatalf("limit=2 gave %d entries", len(ans.Entries))
	}
	c.json("GET", "/api/logs/postgres?bytes=10", nil, http.StatusOK, &ans)
	if len(ans.Entries) != 0 || !ans.Truncated {
		t.Fatalf("10 bytes of tail gave %d entries, truncated %v", len(ans.Entries), ans.Truncated)
	}
}

// TestPostgresLogWithoutPrivilege: a role that may not read the server's
// files gets an answer saying why, not a failure.
func TestPostgresLogWithoutPrivilege(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	role := "logless_" + strings.TrimPrefix(db.Name, "t_")
	ctx := context.Background()
	if _, err := db.Admin.Exec(ctx, "CREATE ROLE "+role+" LOGIN"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = db.Admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
	pool, err := pg.Connect(ctx, strings.Replace(db.AdminURL, "postgres://postgres@", "postgres://"+role+"@", 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ans, err := readServerLog(ctx, pool, serverLogFilter{limit: 10, bytes: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Available || !strings.Contains(ans.Reason, "may not read the server's log files") {
		t.Fatalf("answer %+v", ans)
	}
}
