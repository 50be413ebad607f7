package realtime_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/basaltdev/basalt/realtime"
)

// TestLimits checks the reference's limit errors: payload size with ack,
// joins per second (the socket is closed), concurrent users (join error,
// then 429 on upgrade) and events per second (the channel is closed).
func TestLimits(t *testing.T) {
	t.Parallel()
	cfg := map[string]any{"config": map[string]any{"broadcast": map[string]any{"ack": true}}}

	t.Run("payload size", func(t *testing.T) {
		t.Parallel()
		b := setup(t, realtime.Config{PostgresChanges: false, MaxPayloadBytes: 100})
		c := b.dial(t, "2.0.0")
		c.join("1", "realtime:big", cfg)
		c.push("1", "2", "realtime:big", "broadcast", map[string]any{"type": "broadcast", "event": "e", "payload": map[string]any{"s": strings.Repeat("x", 200)}})
		if got, want := c.next(), `["1","2","realtime:big","phx_reply",{"status":"error","response":"payload_size_exceeded"}]`; got != want {
			t.Errorf("reply = %s, want %s", got, want)
		}
	})

	t.Run("joins per second", func(t *testing.T) {
		t.Parallel()
		b := setup(t, realtime.Config{PostgresChanges: false, MaxJoinsPerSecond: 2, MaxJoinsPerSecondPerClient: 2})
		c := b.dial(t, "2.0.0")
		c.join("1", "realtime:a", cfg)
		c.join("2", "realtime:b", cfg)
		if got, want := c.join("3", "realtime:c", cfg), `["3","3","realtime:c","phx_reply",{"status":"error","response":{"reason":"ClientJoinRateLimitReached: Too many joins per second"}}]`; got != want {
			t.Errorf("third join = %s, want %s", got, want)
		}
		if _, _, err := c.frame(5 * time.Second); err == nil {
			t.Error("socket still open after the join rate was exceeded")
		}
	})

	t.Run("concurrent users", func(t *testing.T) {
		t.Parallel()
		b := setup(t, realtime.Config{PostgresChanges: false, MaxConcurrentUsers: 1})
		first := b.dial(t, "2.0.0")
		second := b.dial(t, "2.0.0")
		first.join("1", "realtime:a", cfg)
		if got := second.join("1", "realtime:a", cfg); !strings.Contains(got, `"reason":"ConnectionRateLimitReached: Too many connected users"`) {
			t.Errorf("second user's join = %s", got)
		}
		u := "ws" + strings.TrimPrefix(b.url, "http") + "/realtime/v1/websocket?apikey=" + b.keys.AnonKey + "&vsn=2.0.0"
		_, res, err := websocket.DefaultDialer.Dial(u, nil)
		if err == nil || res == nil || res.StatusCode != http.StatusTooManyRequests {
			t.Errorf("upgrade over the limit: %v %v", err, res)
		}
	})

	t.Run("events per second", func(t *testing.T) {
		t.Parallel()
		// The project's limit, not a client's share: two clients.
		b := setup(t, realtime.Config{PostgresChanges: false, MaxEventsPerSecond: 2, MaxEventsPerSecondPerClient: 100})
		sender := b.dialFrom(t, "2.0.0", "192.0.2.1")
		sender.join("1", "realtime:busy", map[string]any{"config": map[string]any{}})
		recv := b.dialFrom(t, "2.0.0", "192.0.2.2")
		recv.join("1", "realtime:busy", map[string]any{"config": map[string]any{}})
		broadcast := func() {
			sender.push("1", nil, "realtime:busy", "broadcast", map[string]any{"type": "broadcast", "event": "e", "payload": map[string]any{}})
		}
		for range 30 {
			broadcast()
		}
		for range 30 {
			recv.expect(`"broadcast"`)
		}
		// Each broadcast reaches the reader; the first one after the
		// counter's next tick is followed by the refusal.
		var got string
		for deadline := time.Now().Add(10 * time.Second); got == ""; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the limit never tripped")
			}
			broadcast()
			if f := recv.next(); strings.Contains(f, `"system"`) {
				got = f
			}
		}
		if got != `["1",null,"realtime:busy","system",{"channel":"busy","extension":"system","message":"Too many messages per second","status":"error"}]` {
			t.Errorf("system = %s", got)
		}
		if got := recv.next(); got != `["1","1","realtime:busy","phx_close",{}]` {
			t.Errorf("close = %s", got)
		}
	})
}

// TestLimitsAcrossNodes runs two nodes of one project: the concurrent
// users and joins-per-second budgets are the project's, so what one node
// admitted counts on the other.
func TestLimitsAcrossNodes(t *testing.T) {
	t.Parallel()
	cfg := map[string]any{"config": map[string]any{}}

	t.Run("concurrent users", func(t *testing.T) {
		t.Parallel()
		rc := realtime.Config{PostgresChanges: false, Cluster: true, MaxConcurrentUsers: 1, UpgradeErrorBackoff: time.Millisecond}
		n1 := setup(t, rc)
		n2 := node(t, n1.db, n1.keys, rc)
		first := n1.dial(t, "2.0.0")
		first.join("1", "realtime:a", cfg)
		// The other node hears of the user within a moment: its upgrades
		// are refused, and so is a join on a socket it had already opened.
		u := "ws" + strings.TrimPrefix(n2.url, "http") + "/realtime/v1/websocket?apikey=" + n2.keys.AnonKey + "&vsn=2.0.0"
		second := n2.dial(t, "2.0.0")
		deadline := time.Now().Add(10 * time.Second)
		for {
			ws, res, err := websocket.DefaultDialer.Dial(u, nil)
			if err != nil && res != nil && res.StatusCode == http.StatusTooManyRequests {
				break
			}
			if err == nil {
				_ = ws.Close()
			}
			if time.Now().After(deadline) {
				t.Fatalf("upgrade on the other node while the project is at its limit: %v %v", err, res)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if got := second.join("1", "realtime:a", cfg); !strings.Contains(got, `"reason":"ConnectionRateLimitReached: Too many connected users"`) {
			t.Errorf("join on the other node = %s", got)
		}
		// The first user leaves: the other node admits again.
		_ = first.ws.Close()
		deadline = time.Now().Add(10 * time.Second)
		for {
			ws, _, err := websocket.DefaultDialer.Dial(u, nil)
			if err == nil {
				_ = ws.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("upgrade still refused after the only user left: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("users per client", func(t *testing.T) {
		t.Parallel()
		rc := realtime.Config{PostgresChanges: false, Cluster: true, MaxConcurrentUsersPerClient: 1, ErrorBackoff: time.Millisecond}
		n1 := setup(t, rc)
		n2 := node(t, n1.db, n1.keys, rc)
		waitPeers(t, n1, n2)
		token := map[string]any{"config": map[string]any{}, "access_token": n1.token(t, "authenticated", userA, time.Hour)}
		if got := n1.dialFrom(t, "2.0.0", "192.0.2.1").join("1", "realtime:a", token); !strings.Contains(got, `"status":"ok"`) {
			t.Fatalf("first tab = %s", got)
		}
		for deadline := time.Now().Add(10 * time.Second); realtime.UserSockets(n2.svc, userA) < 1; {
			if time.Now().After(deadline) {
				t.Fatal("the other node never heard of the user's socket")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if got := n2.dialFrom(t, "2.0.0", "192.0.2.2").join("1", "realtime:a", token); !strings.Contains(got, `"reason":"ConnectionRateLimitReached: Too many connected users"`) {
			t.Errorf("the user's second tab, on the other node = %s", got)
		}
		// Another user on the same node is not affected.
		other := map[string]any{"config": map[string]any{}, "access_token": n1.token(t, "authenticated", userB, time.Hour)}
		if got := n2.dialFrom(t, "2.0.0", "192.0.2.2").join("1", "realtime:a", other); !strings.Contains(got, `"status":"ok"`) {
			t.Errorf("another user on the other node = %s", got)
		}
	})

	t.Run("joins per second", func(t *testing.T) {
		t.Parallel()
		rc := realtime.Config{PostgresChanges: false, MaxJoinsPerSecond: 3, MaxJoinsPerSecondPerClient: 3, ErrorBackoff: time.Millisecond}
		n1 := setup(t, rc)
		n2 := node(t, n1.db, n1.keys, rc)
		c1 := n1.dial(t, "2.0.0")
		c2 := n2.dial(t, "2.0.0")
		c1.join("1", "realtime:a", cfg)
		c1.join("2", "realtime:b", cfg)
		c2.join("1", "realtime:a", cfg)
		if got, want := c2.join("2", "realtime:b", cfg), `["2","2","realtime:b","phx_reply",{"status":"error","response":{"reason":"ClientJoinRateLimitReached: Too many joins per second"}}]`; got != want {
			t.Errorf("fourth join in a second, on the other node = %s, want %s", got, want)
		}
	})
}
