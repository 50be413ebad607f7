package studio

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestAccessLogsFilters: the Logs screen's list filters by service,
// status (code, class, error), method, path, user, request id and node,
// newest first, with keyset paging; bad filters are refused.
func TestAccessLogsFilters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	e.exec(`INSERT INTO basalt.access_logs (at, node, request_id, service, method, path, status, user_id, role) VALUES
		(now() - interval '3 s', 'n1', 'r1', 'rest', 'GET', '/rest/v1/tracks', 200, 'u1', 'authenticated'),
		(now() - interval '2 s', 'n2', 'r2', 'rest', 'GET', '/rest/v1/nope', 404, '', 'anon'),
		(now() - interval '1 s', 'n1', 'r3', 'auth', 'POST', '/auth/v1/token', 400, '', 'anon'),
		(now(), 'n2', 'r4', 'storage', 'GET', '/storage/v1/object/a_b', 500, 'u1', 'authenticated')`)
	type row struct {
		ID        int64  `json:"id"`
		RequestID string `json:"request_id"`
		Status    int    `json:"status"`
	}
	ids := func(q string) string {
		var out []row
		c.json("GET", "/api/logs"+q, nil, http.StatusOK, &out)
		var s []string
		for _, r := range out {
			s = append(s, r.RequestID)
		}
		return strings.Join(s, ",")
	}
	for q, want := range map[string]string{
		"":                      "r4,r3,r2,r1",
		"?service=rest":         "r2,r1",
		"?status=404":           "r2",
		"?status=4xx":           "r3,r2",
		"?status=error":         "r4,r3,r2",
		"?method=post":          "r3",
		"?path=nope":            "r2",
		"?path=a_b":             "r4",
		"?path=a%25":            "",
		"?user=u1":              "r4,r1",
		"?request_id=r2":        "r2",
		"?node=n1":              "r3,r1",
		"?service=rest&user=u1": "r1",
		"?limit=2":              "r4,r3",
	} {
		if got := ids(q); got != want {
			t.Errorf("GET /api/logs%s: %q, want %q", q, got, want)
		}
	}
	var page []row
	c.json("GET", "/api/logs?limit=2", nil, http.StatusOK, &page)
	if got := ids("?limit=2&before=" + itoa(page[1].ID)); got != "r2,r1" {
		t.Errorf("second page %q", got)
	}
	for _, q := range []string{"?status=abc", "?status=6xx", "?limit=-1", "?before=x"} {
		c.json("GET", "/api/logs"+q, nil, http.StatusBadRequest, nil)
	}
}

// TestFunctionLogs: function logs are listed next to the access log, by
// function and request id.
func TestFunctionLogs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	e.exec(`INSERT INTO basalt.function_logs (function, version, kind, request_id, level, message) VALUES
		('hello', 'v1', 'log', 'r1', 'info', 'hi there'),
		('hello', 'v1', 'log', 'r2', 'error', 'boom'),
		('other', 'v1', 'request', 'r2', 'info', '')`)
	var out []struct {
		Function, Message string
	}
	c.json("GET", "/api/logs/functions?function=hello&request_id=r2", nil, http.StatusOK, &out)
	if len(out) != 1 || out[0].Message != "boom" {
		t.Fatalf("function logs %+v", out)
	}
}

// TestRevokeSessions: a user's sessions are listed and revoked one by one
// or all at once; their refresh tokens go with them; another user's
// session is not touched.
func TestRevokeSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	const uid, other = "00000000-0000-0000-0000-0000000000aa", "00000000-0000-0000-0000-0000000000bb"
	const s1, s2, s3 = "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002", "00000000-0000-0000-0000-000000000003"
	for _, u := range []string{uid, other} {
		e.addUser(u, u+"@example.com")
	}
	e.exec(`INSERT INTO auth.sessions (id, user_id, created_at, user_agent, ip) VALUES ($1, $3, now(), 'phone', '10.0.0.1'), ($2, $3, now(), 'laptop', '10.0.0.2'), ($4, $5, now(), 'x', NULL)`, s1, s2, uid, s3, other)
	e.exec(`INSERT INTO auth.refresh_tokens (instance_id, token, user_id, revoked, session_id) VALUES ('00000000-0000-0000-0000-000000000000', 'tok1', $1, false, $2)`, uid, s1)
	var list []struct {
		ID                string `json:"id"`
		UserAgent         string `json:"user_agent"`
		IP                string `json:"ip"`
		LiveRefreshTokens int    `json:"live_refresh_tokens"`
	}
	c.json("GET", "/api/auth/users/"+uid+"/sessions", nil, http.StatusOK, &list)
	if len(list) != 2 {
		t.Fatalf("sessions %+v", list)
	}
	c.json("DELETE", "/api/auth/users/"+uid+"/sessions/"+s1, nil, http.StatusOK, nil)
	c.json("DELETE", "/api/auth/users/"+uid+"/sessions/"+s1, nil, http.StatusNotFound, nil)
	c.json("DELETE", "/api/auth/users/"+uid+"/sessions/"+s3, nil, http.StatusNotFound, nil) // another user's
	c.json("DELETE", "/api/auth/users/"+uid+"/sessions/nope", nil, http.StatusBadRequest, nil)
	var tokens int
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM auth.refresh_tokens WHERE token = 'tok1'`).Scan(&tokens); err != nil || tokens != 0 {
		t.Fatalf("the revoked session's refresh token is still there (%d, %v)", tokens, err)
	}
	c.json("DELETE", "/api/auth/users/"+uid+"/sessions/all", nil, http.StatusOK, nil)
	c.json("GET", "/api/auth/users/"+uid+"/sessions", nil, http.StatusOK, &list)
	if len(list) != 0 {
		t.Fatalf("sessions left %+v", list)
	}
	c.json("GET", "/api/auth/users/"+other+"/sessions", nil, http.StatusOK, &list)
	if len(list) != 1 {
		t.Fatalf("another user's sessions %+v", list)
	}
	var target string
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT target FROM basalt.studio_audit WHERE action = 'auth.session_revoke' AND status = 200 ORDER BY id LIMIT 1`).Scan(&target); err != nil || !strings.Contains(target, s1) {
		t.Fatalf("audit target %q, %v", target, err)
	}
}

// TestStoragePassesThrough: storage calls reach the API at the same
// path, escaped as sent, with the key added and the body intact.
func TestStoragePassesThrough(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	req := c.request("POST", "/storage/v1/object/media/folder/a%20b%2Fc.png", "PNGDATA")
	req.Header.Set("Content-Type", "image/png")
	req.Header.Set("X-Upsert", "true")
	if res := send(t, req); res.StatusCode != http.StatusOK {
		t.Fatalf("upload: %d %s", res.StatusCode, readAll(t, res))
	}
	got := e.api.last()
	if got.URL.EscapedPath() != "/storage/v1/object/media/folder/a%20b%2Fc.png" || got.Header.Get("Content-Type") != "image/png" ||
		got.Header.Get("X-Upsert") != "true" || got.Header.Get("apikey") != e.keys.ServiceRoleKey {
		t.Fatalf("the API got %s %v", got.URL.EscapedPath(), got.Header)
	}
	// A resumable upload's chunk keeps TUS's headers.
	req = c.request("PATCH", "/storage/v1/upload/resumable/abc", "CHUNK")
	req.Header.Set("Content-Type", "application/offset+octet-stream")
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set("Upload-Offset", "6291456")
	if res := send(t, req); res.StatusCode != http.StatusOK {
		t.Fatalf("chunk: %d %s", res.StatusCode, readAll(t, res))
	}
	got = e.api.last()
	if got.Method != "PATCH" || got.Header.Get("Tus-Resumable") != "1.0.0" || got.Header.Get("Upload-Offset") != "6291456" ||
		got.Header.Get("Cookie") != "" || got.Header.Get(csrfHeader) != "" {
		t.Fatalf("the API got %s %v", got.Method, got.Header)
	}
	var detail string
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT detail::text FROM basalt.studio_audit WHERE action = 'storage' ORDER BY id LIMIT 1`).Scan(&detail); err != nil || !strings.Contains(detail, "image/png") {
		t.Fatalf("audit detail %q, %v", detail, err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
