package realtime_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/basaltdev/basalt/realtime"
)

// TestHeartbeatAndJoinReplies checks the exact frames of heartbeat, join,
// leave and an unmatched topic, in both protocol versions.
func TestHeartbeatAndJoinReplies(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false})
	tests := []struct {
		vsn                                    string
		heartbeat, join, leave, close, nomatch string
	}{
		{
			vsn:       "2.0.0",
			heartbeat: `[null,"1","phoenix","phx_reply",{"status":"ok","response":{}}]`,
			join:      `["2","2","realtime:room","phx_reply",{"status":"ok","response":{"postgres_changes":[]}}]`,
			leave:     `["2","3","realtime:room","phx_reply",{"status":"ok","response":{}}]`,
			close:     `["2","2","realtime:room","phx_close",{}]`,
			nomatch:   `[null,"4","realtime:room","phx_reply",{"status":"error","response":{"reason":"unmatched topic"}}]`,
		},
		{
			vsn:       "1.0.0",
			heartbeat: `{"topic":"phoenix","event":"phx_reply","payload":{"status":"ok","response":{}},"ref":"1"}`,
			join:      `{"topic":"realtime:room","event":"phx_reply","payload":{"status":"ok","response":{"postgres_changes":[]}},"ref":"2"}`,
			leave:     `{"topic":"realtime:room","event":"phx_reply","payload":{"status":"ok","response":{}},"ref":"3"}`,
			close:     `{"topic":"realtime:room","event":"phx_close","payload":{},"ref":"2"}`,
			nomatch:   `{"topic":"realtime:room","event":"phx_reply","payload":{"status":"error","response":{"reason":"unmatched topic"}},"ref":"4"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.vsn, func(t *testing.T) {
			t.Parallel()
			c := b.dial(t, tt.vsn)
			c.push(nil, "1", "phoenix", "heartbeat", map[string]any{})
			if got := c.next(); got != tt.heartbeat {
				t.Errorf("heartbeat reply = %s, want %s", got, tt.heartbeat)
			}
			c.push("2", "2", "realtime:room", "phx_join", map[string]any{"config": map[string]any{
				"broadcast": map[string]any{"ack": false, "self": false}, "presence": map[string]any{"key": ""},
				"postgres_changes": []any{}, "private": false}})
			if got := c.next(); got != tt.join {
				t.Errorf("join reply = %s, want %s", got, tt.join)
			}
			c.push("2", "3", "realtime:room", "phx_leave", map[string]any{})
			if got := c.next(); got != tt.leave {
				t.Errorf("leave reply = %s, want %s", got, tt.leave)
			}
			if got := c.next(); got != tt.close {
				t.Errorf("close = %s, want %s", got, tt.close)
			}
			c.push("2", "4", "realtime:room", "broadcast", map[string]any{"type": "broadcast", "event": "x", "payload": map[string]any{}})
			if got := c.next(); got != tt.nomatch {
				t.Errorf("after leave = %s, want %s", got, tt.nomatch)
			}
			// Leaving again succeeds, as Phoenix answers it.
			c.push("2", "3", "realtime:room", "phx_leave", map[string]any{})
			if got := c.next(); got != tt.leave {
				t.Errorf("second leave = %s, want %s", got, tt.leave)
			}
		})
	}
}

// TestJoinEchoesPostgresChanges checks that the join reply lists every
// requested binding in order with its keys and an id, and that identical
// bindings get identical ids.
func TestJoinEchoesPostgresChanges(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false})
	c := b.dial(t, "2.0.0")
	pcs := []map[string]any{
		{"event": "INSERT", "schema": "public", "table": "notes", "filter": "id=eq.1"},
		{"event": "*", "schema": "public"},
		{"event": "INSERT", "schema": "public", "table": "notes", "filter": "id=eq.1"},
	}
	reply := c.join("1", "realtime:db", map[string]any{"config": map[string]any{"postgres_changes": pcs}})
	var msg []json.RawMessage
	if err := json.Unmarshal([]byte(reply), &msg); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Status   string `json:"status"`
		Response struct {
			PostgresChanges []map[string]any `json:"postgres_changes"`
		} `json:"response"`
	}
	if err := json.Unmarshal(msg[4], &body); err != nil || body.Status != "ok" {
		t.Fatalf("reply %s", reply)
	}
	got := body.Response.PostgresChanges
	if len(got) != 3 {
		t.Fatalf("bindings %v, want 3", got)
	}
	for i, want := range pcs {
		for k, v := range want {
			if got[i][k] != v {
				t.Errorf("binding %d %s = %v, want %v", i, k, got[i][k], v)
			}
		}
		if _, ok := got[i]["id"].(float64); !ok {
			t.Errorf("binding %d id = %#v, want a number", i, got[i]["id"])
		}
	}
	if got[0]["id"] != got[2]["id"] || got[0]["id"] == got[1]["id"] {
		t.Errorf("ids %v %v %v: identical bindings share an id, others differ", got[0]["id"], got[1]["id"], got[2]["id"])
	}
	// With postgres_changes off the subscription is reported as failed.
	c.expect(`"system"`, `"extension":"postgres_changes"`, `"status":"error"`)
}

// TestBinaryBroadcast checks vsn 2 broadcasts byte for byte: a kind-3 push
// reaches another v2 socket as a kind-4 frame and a v1 socket as JSON; the
// sender gets its ack and, without self, not its own message.
func TestBinaryBroadcast(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false})
	cfg := func(ack, self bool) map[string]any {
		return map[string]any{"config": map[string]any{"broadcast": map[string]any{"ack": ack, "self": self}}}
	}
	sender := b.dial(t, "2.0.0")
	sender.join("1", "realtime:room", cfg(true, false))
	v2 := b.dial(t, "2.0.0")
	v2.join("1", "realtime:room", cfg(false, false))
	v1 := b.dial(t, "1.0.0")
	v1.join("1", "realtime:room", cfg(false, false))

	// The contract's example frame: join_ref 1, ref 3, event cursor, {"x":1}.
	push := []byte("\x03\x01\x01\x0d\x06\x00\x01" + "1" + "3" + "realtime:room" + "cursor" + `{"x":1}`)
	if err := sender.ws.WriteMessage(websocket.BinaryMessage, push); err != nil {
		t.Fatal(err)
	}
	if got, want := sender.next(), `["1","3","realtime:room","phx_reply",{"status":"ok","response":{}}]`; got != want {
		t.Errorf("ack = %s, want %s", got, want)
	}
	data, bin, err := v2.frame(5 * time.Second)
	want := []byte("\x04\x0d\x06\x00\x01" + "realtime:room" + "cursor" + `{"x":1}`)
	if err != nil || !bin || !bytes.Equal(data, want) {
		t.Errorf("v2 got % x (binary %v, %v), want % x", data, bin, err, want)
	}
	if got, want := v1.next(), `{"topic":"realtime:room","event":"broadcast","payload":{"type":"broadcast","event":"cursor","payload":{"x":1}},"ref":null}`; got != want {
		t.Errorf("v1 got %s, want %s", got, want)
	}

	// Raw bytes (encoding 0) reach v2 unchanged and never reach v1.
	raw := []byte{0, 1, 2, 255}
	push = append([]byte("\x03\x01\x01\x0d\x03\x00\x00"+"1"+"4"+"realtime:room"+"bin"), raw...)
	_ = sender.ws.WriteMessage(websocket.BinaryMessage, push)
	sender.expect(`"4"`, `"ok"`)
	data, _, _ = v2.frame(5 * time.Second)
	if want := append([]byte("\x04\x0d\x03\x00\x00"+"realtime:room"+"bin"), raw...); !bytes.Equal(data, want) {
		t.Errorf("v2 binary got % x, want % x", data, want)
	}

	// A v1 JSON broadcast reaches v2 as a JSON array text frame.
	v1.push("1", "5", "realtime:room", "broadcast", map[string]any{"type": "broadcast", "event": "e", "payload": map[string]any{"a": "b"}})
	if got, want := v2.next(), `[null,null,"realtime:room","broadcast",{"event":"e","payload":{"a":"b"},"type":"broadcast"}]`; got != want {
		t.Errorf("v2 got %s, want %s", got, want)
	}
	sender.expect(`"broadcast"`, `"event":"e"`)
	// The sender without self never saw its own cursor/bin messages: the
	// next frame it gets is the v1 one checked above.
}

// TestBroadcastSelf checks that self:true delivers the sender's own message.
func TestBroadcastSelf(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false})
	c := b.dial(t, "1.0.0")
	c.join("1", "realtime:me", map[string]any{"config": map[string]any{"broadcast": map[string]any{"self": "true"}}})
	c.push("1", "2", "realtime:me", "broadcast", map[string]any{"type": "broadcast", "event": "hi", "payload": map[string]any{"n": 1}})
	if got, want := c.next(), `{"topic":"realtime:me","event":"broadcast","payload":{"event":"hi","payload":{"n":1},"type":"broadcast"},"ref":null}`; got != want {
		t.Errorf("self got %s, want %s", got, want)
	}
}

// TestPresence checks presence_state after the join reply, and diffs for a
// track, an update (leave + join with phx_ref_prev) and a disconnect.
func TestPresence(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false})
	join := map[string]any{"config": map[string]any{"presence": map[string]any{"enabled": true, "key": "alice"}}}
	a := b.dial(t, "2.0.0")
	a.join("1", "realtime:lobby", join)
	if got, want := a.next(), `["1",null,"realtime:lobby","presence_state",{}]`; got != want {
		t.Errorf("state = %s, want %s", got, want)
	}
	a.push("1", "2", "realtime:lobby", "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"mood": "ok"}})
	if got := a.next(); got != `["1","2","realtime:lobby","phx_reply",{"status":"ok","response":{}}]` {
		t.Errorf("track reply = %s", got)
	}
	diff := a.expect(`"presence_diff"`)
	if !strings.HasPrefix(diff, `[null,null,"realtime:lobby","presence_diff",{"joins":{"alice":{"metas":[{"mood":"ok","phx_ref":"`) ||
		!strings.HasSuffix(diff, `"}]}},"leaves":{}}]`) {
		t.Errorf("own diff = %s", diff)
	}
	bob := b.dial(t, "1.0.0")
	bob.join("1", "realtime:lobby", map[string]any{"config": map[string]any{"presence": map[string]any{"key": "bob", "enabled": true}}})
	state := bob.next()
	if !strings.Contains(state, `"event":"presence_state","payload":{"alice":{"metas":[{"mood":"ok","phx_ref":"`) {
		t.Errorf("bob's state = %s", state)
	}
	a.push("1", "3", "realtime:lobby", "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"mood": "great"}})
	upd := bob.expect(`"presence_diff"`)
	if !strings.Contains(upd, `"joins":{"alice":{"metas":[{"mood":"great","phx_ref":"`) || !strings.Contains(upd, `"phx_ref_prev":"`) ||
		!strings.Contains(upd, `"leaves":{"alice":{"metas":[{"mood":"ok"`) {
		t.Errorf("update diff = %s", upd)
	}
	_ = a.ws.Close()
	left := bob.expect(`"presence_diff"`, `"leaves":{"alice"`)
	if !strings.Contains(left, `"joins":{}`) {
		t.Errorf("leave diff = %s", left)
	}
}

// TestJoinErrors checks refused joins: the reason texts and, for the join
// rate, the socket closing.
func TestJoinErrors(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false, MaxChannelsPerClient: 1})
	c := b.dial(t, "2.0.0")
	c.join("1", "realtime:a", map[string]any{})
	if got, want := c.join("2", "realtime:b", map[string]any{}), `["2","2","realtime:b","phx_reply",{"status":"error","response":{"reason":"ChannelRateLimitReached: Too many channels"}}]`; got != want {
		t.Errorf("second channel = %s, want %s", got, want)
	}
	if got, want := c.join("3", "realtime:", map[string]any{}), `["3","3","realtime:","phx_reply",{"status":"error","response":{"reason":"TopicNameRequired: You must provide a topic name"}}]`; got != want {
		t.Errorf("empty topic = %s, want %s", got, want)
	}
	expired := b.token(t, "authenticated", "u1", -time.Hour)
	got := c.join("4", "realtime:a", map[string]any{"access_token": expired})
	if !strings.Contains(got, `"reason":"InvalidJWTToken: Token has expired 3600 seconds ago"`) &&
		!strings.Contains(got, `"reason":"InvalidJWTToken: Token has expired 3601 seconds ago"`) {
		t.Errorf("expired token = %s", got)
	}
	if got := c.join("5", "realtime:a", map[string]any{"access_token": "nope"}); !strings.Contains(got, `"MalformedJWT: The token provided is not a valid JWT"`) {
		t.Errorf("malformed token = %s", got)
	}
	if got := c.join("6", "other", map[string]any{}); got != `[null,"6","other","phx_reply",{"status":"error","response":{"reason":"unmatched topic"}}]` {
		t.Errorf("other topic = %s", got)
	}
}

// TestTokenExpiryClosesChannel checks that a channel whose token expires
// gets the system message and phx_close, and that a new token through
// access_token keeps it open.
func TestTokenExpiryClosesChannel(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false})
	c := b.dial(t, "2.0.0")
	c.join("1", "realtime:short", map[string]any{"config": map[string]any{}, "access_token": b.token(t, "authenticated", "u1", 2*time.Second)})
	sys := c.expect(`"system"`)
	if !strings.HasPrefix(sys, `["1",null,"realtime:short","system",{"channel":"short","extension":"system","message":"Token has expired `) ||
		!strings.HasSuffix(sys, ` seconds ago","status":"error"}]`) {
		t.Errorf("system = %s", sys)
	}
	if got := c.next(); got != `["1","1","realtime:short","phx_close",{}]` {
		t.Errorf("close = %s", got)
	}
	c.join("2", "realtime:long", map[string]any{"config": map[string]any{}, "access_token": b.token(t, "authenticated", "u1", 2*time.Second)})
	c.push("2", "3", "realtime:long", "access_token", map[string]any{"access_token": b.token(t, "authenticated", "u1", time.Hour)})
	// A witness channel whose token expires a second after the replaced one:
	// once it is closed, the replaced token's expiry is past too.
	c.join("4", "realtime:witness", map[string]any{"config": map[string]any{}, "access_token": b.token(t, "authenticated", "u1", 3*time.Second)})
	var seen []string
	for {
		f := c.next()
		if f == `["4","4","realtime:witness","phx_close",{}]` {
			break
		}
		seen = append(seen, f)
	}
	seen = append(seen, c.roundTrip("5")...)
	for _, f := range seen {
		if strings.Contains(f, `"realtime:long"`) {
			t.Errorf("the renewed channel got %s", f)
		}
	}
}

// TestUpgradeErrors checks refused upgrades: the reference's status and body.
func TestUpgradeErrors(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false})
	// The gateway refuses a missing key first, in its own words.
	res, err := http.Get(b.url + "/realtime/v1/websocket?vsn=2.0.0")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != 401 || !strings.Contains(string(body), "No API key found in request") {
		t.Errorf("no key: %d %s", res.StatusCode, body)
	}
	// Behind the gateway the service sees a project key; directly, an
	// expired token is refused with the reference's body.
	req, _ := http.NewRequest("GET", "/websocket?apikey="+b.token(t, "anon", "", -time.Minute), nil)
	rec := newRecorder()
	b.svc.ServeHTTP(rec, req)
	if rec.status != 401 || rec.body.String() != `{"error":"Token has expired"}`+"\n" {
		t.Errorf("expired key: %d %q", rec.status, rec.body.String())
	}
}

type recorder struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder                    { return &recorder{h: http.Header{}} }
func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) Write(p []byte) (int, error) { return r.body.Write(p) }
func (r *recorder) WriteHeader(s int)           { r.status = s }

// TestSlowSubscriberDropped checks that a client that stops reading is
// disconnected once its queue passes the limit, while another subscriber
// of the same topic receives every message.
func TestSlowSubscriberDropped(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false, MaxQueueBytes: 4 << 20, MaxEventsPerSecond: 1 << 30})
	slow := b.dial(t, "2.0.0")
	slow.join("1", "realtime:flood", map[string]any{"config": map[string]any{}})
	fast := b.dial(t, "2.0.0")
	fast.join("1", "realtime:flood", map[string]any{"config": map[string]any{}})
	sender := b.dial(t, "2.0.0")
	sender.join("1", "realtime:flood", map[string]any{"config": map[string]any{}})
	const n = 1500
	payload := strings.Repeat("x", 16<<10)
	done := make(chan int)
	go func() {
		got := 0
		for got < n {
			if _, _, err := fast.frame(20 * time.Second); err != nil {
				break
			}
			got++
		}
		done <- got
	}()
	for i := range n {
		f := fmt.Sprintf(`["1",null,"realtime:flood","broadcast",{"type":"broadcast","event":"e","payload":{"i":%d,"p":%q}}]`, i, payload)
		if err := sender.ws.WriteMessage(websocket.TextMessage, []byte(f)); err != nil {
			t.Fatal(err)
		}
		if i%50 == 49 {
			time.Sleep(5 * time.Millisecond) // a busy sender, not a burst the fast reader cannot follow
		}
	}
	if got := <-done; got != n {
		t.Errorf("fast subscriber got %d of %d", got, n)
	}
	// The slow client's socket was closed under it: reading what the
	// kernel buffered ends in an error, not in all n messages.
	read := 0
	for {
		if _, _, err := slow.frame(5 * time.Second); err != nil {
			if websocket.IsCloseError(err, websocket.CloseNormalClosure) {
				t.Errorf("slow client got a close frame, want the connection dropped")
			}
			break
		}
		read++
	}
	if read >= n {
		t.Errorf("slow client read all %d messages; want it dropped", read)
	}
}

// TestPublishableKey checks that a socket opened with a new-format
// publishable key (supabase-js puts it in the apikey parameter) acts as the
// anon key.
func TestPublishableKey(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false})
	u := "ws" + strings.TrimPrefix(b.url, "http") + "/realtime/v1/websocket?apikey=" + b.keys.PublishableKey + "&vsn=2.0.0"
	ws, res, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, res)
	}
	defer ws.Close()
	c := &client{t: t, ws: ws, vsn: "2.0.0"}
	if got := c.join("1", "realtime:pk", map[string]any{"config": map[string]any{}, "access_token": b.keys.PublishableKey}); !strings.Contains(got, `"status":"ok"`) {
		t.Errorf("join = %s", got)
	}
}

// TestStaleLeave checks that a phx_leave carrying an earlier join's ref
// (the client raced a server close) gets no reply and leaves the current
// join alone.
func TestStaleLeave(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false})
	c := b.dial(t, "2.0.0")
	c.join("5", "realtime:s", map[string]any{"config": map[string]any{}})
	c.push("4", "6", "realtime:s", "phx_leave", map[string]any{})
	c.push(nil, "7", "phoenix", "heartbeat", map[string]any{})
	if got := c.next(); got != `[null,"7","phoenix","phx_reply",{"status":"ok","response":{}}]` {
		t.Errorf("after a stale leave got %s, want only the heartbeat reply", got)
	}
	c.push("5", "8", "realtime:s", "phx_leave", map[string]any{})
	if got := c.next(); got != `["5","8","realtime:s","phx_reply",{"status":"ok","response":{}}]` {
		t.Errorf("current leave = %s", got)
	}
}

// TestFramesOfEverySize sends broadcasts whose frames fall on each side of
// the websocket length encodings (7-bit, 16-bit, 64-bit) as one burst, so
// the server writes many frames in one go: each arrives whole, in order,
// with its payload intact, in both protocol versions.
func TestFramesOfEverySize(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false, MaxEventsPerSecond: 1 << 30})
	subs := map[string]*client{"1.0.0": b.dial(t, "1.0.0"), "2.0.0": b.dial(t, "2.0.0")}
	for _, c := range subs {
		c.join("1", "realtime:sizes", map[string]any{"config": map[string]any{}})
	}
	sender := b.dial(t, "2.0.0")
	sender.join("1", "realtime:sizes", map[string]any{"config": map[string]any{}})
	var sizes []int
	for _, edge := range []int{125, 126, 65535, 65536} {
		for d := -70; d <= 70; d += 35 {
			sizes = append(sizes, edge+d)
		}
	}
	sizes = append(sizes, 1, 300_000)
	for i, n := range sizes {
		f := fmt.Sprintf(`["1",null,"realtime:sizes","broadcast",{"type":"broadcast","event":"e","payload":{"i":%d,"p":%q}}]`, i, strings.Repeat("x", n))
		if err := sender.ws.WriteMessage(websocket.TextMessage, []byte(f)); err != nil {
			t.Fatal(err)
		}
	}
	for vsn, c := range subs {
		for i, n := range sizes {
			data, bin, err := c.frame(10 * time.Second)
			if err != nil || bin {
				t.Fatalf("%s: frame %d: %v (binary %v)", vsn, i, err, bin)
			}
			want := fmt.Sprintf(`"payload":{"i":%d,"p":"%s"}`, i, strings.Repeat("x", n))
			if !strings.Contains(string(data), want) || !json.Valid(data) {
				t.Fatalf("%s: frame %d of %d bytes is not broadcast %d of %d bytes", vsn, i, len(data), i, n)
			}
		}
	}
}
