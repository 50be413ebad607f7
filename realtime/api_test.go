package realtime_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/realtime"
)

// TestBroadcastAPI checks the REST broadcast endpoints' answers: 202 and
// delivery, the reference's 401, 403, 415 and 422 bodies, and private
// messages the caller may not write skipped with 202.
func TestBroadcastAPI(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false})
	if _, err := b.db.Admin.Exec(t.Context(), privateSQL); err != nil {
		t.Fatal(err)
	}
	user := b.token(t, "authenticated", userA, time.Hour)
	sub := b.dial(t, "2.0.0")
	sub.join("1", "realtime:api", map[string]any{"config": map[string]any{}})
	priv := b.dial(t, "2.0.0")
	priv.join("1", "realtime:api-channel", privateJoin(user, nil))

	post := func(path, token, ctype, body string) (int, string) {
		t.Helper()
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		req, _ := http.NewRequest("POST", b.url+"/realtime/v1"+path+sep+"apikey="+b.keys.AnonKey+"&vsn=2.0.0", strings.NewReader(body))
		req.Header.Set("apikey", b.keys.AnonKey)
		req.Header.Set("Content-Type", ctype)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		return res.StatusCode, strings.TrimSpace(string(out))
	}
	tests := []struct {
		name, path, token, ctype, body string
		status                         int
		want                           string
	}{
		{"batch", "/api/broadcast", "", "application/json",
			`{"messages":[{"topic":"api","event":"e","payload":{"n":1}},{"topic":"api-channel","event":"p","payload":{"n":2},"private":true}]}`, 202, ""},
		{"batch with an expired token", "/api/broadcast", b.token(t, "anon", "", -time.Hour), "application/json",
			`{"messages":[]}`, 401, `{"message":"Unauthorized"}`},
		{"batch without payload", "/api/broadcast", "", "application/json",
			`{"messages":[{"topic":"api","event":"e"},{"topic":"api","event":"e","payload":{}}]}`, 422,
			`{"errors":{"messages":[{"payload":["can't be blank"]},{}]}}`},
		{"batch without messages", "/api/broadcast", "", "application/json", `{}`, 422, `{"errors":{"messages":["can't be blank"]}}`},
		{"batch of no messages", "/api/broadcast", "", "application/json", `{"messages":[]}`, 422, `{"errors":{"messages":["can't be blank"]}}`},
		{"single JSON", "/api/broadcast/api/events/single", "", "application/json", `{"one":1}`, 202, ""},
		{"single binary", "/api/broadcast/api/events/bin", "", "application/octet-stream", "\x00\x01", 202, ""},
		{"single of another type", "/api/broadcast/api/events/x", "", "text/plain", "hi", 415,
			`{"error":"Unsupported Media Type. Use application/json or application/octet-stream"}`},
		{"single private without write", "/api/broadcast/api-channel/events/x?private=true", "", "application/json", `{}`, 403, `{"message":"Unauthorized"}`},
	}
	for _, tt := range tests {
		status, body := post(tt.path, tt.token, tt.ctype, tt.body)
		if status != tt.status || body != tt.want {
			t.Errorf("%s: %d %s, want %d %s", tt.name, status, body, tt.status, tt.want)
		}
	}
	// The anon caller may not write the private topic: only the public
	// message and the single ones arrive.
	if got := sub.next(); got != `[null,null,"realtime:api","broadcast",{"type":"broadcast","event":"e","payload":{"n":1}}]` {
		t.Errorf("batch delivered %s", got)
	}
	data, bin, _ := sub.frame(5 * time.Second)
	if want := "\x04\x0c\x06\x00\x01realtime:apisingle{\"one\":1}"; !bin || string(data) != want {
		t.Errorf("single JSON delivered %q, want %q", data, want)
	}
	data, bin, _ = sub.frame(5 * time.Second)
	if want := []byte("\x04\x0c\x03\x00\x00realtime:apibin\x00\x01"); !bin || !bytes.Equal(data, want) {
		t.Errorf("single binary delivered %q, want %q", data, want)
	}
	// As a user the policy allows, the private message is delivered.
	if status, _ := post("/api/broadcast", user, "application/json",
		`{"messages":[{"topic":"api-channel","event":"p","payload":{"n":3},"private":true}]}`); status != 202 {
		t.Fatalf("private batch status %d", status)
	}
	if got := priv.expect(`"broadcast"`); !strings.Contains(got, `"payload":{"n":3}`) {
		t.Errorf("private channel got %s, want only the authorized message", got)
	}
}
