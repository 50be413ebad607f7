package realtime_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/basaltdev/basalt/realtime"
)

// fast keeps refusals quick: the tests make many.
func fast(cfg realtime.Config) realtime.Config {
	cfg.ErrorBackoff, cfg.UpgradeErrorBackoff = time.Millisecond, time.Millisecond
	return cfg
}

// TestJoinFloodOneClient floods joins from one address, the way the attack
// did (one socket, 400 phx_join back to back, anon key, again and again),
// while signed-in users and another anonymous client connect and join:
// the flood uses up its own address's share of the joins per second, and
// every other client's upgrade and join goes through.
func TestJoinFloodOneClient(t *testing.T) {
	t.Parallel()
	b := setup(t, fast(realtime.Config{PostgresChanges: false}))
	const floodAddr = "198.51.100.7"
	var refused atomic.Int64
	firstRefusal := make(chan struct{})
	var once sync.Once
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		pace := time.NewTicker(100 * time.Millisecond)
		defer pace.Stop()
		for i := 0; ; i++ {
			ws, _, err := b.upgrade("2.0.0", floodAddr)
			if err == nil {
				for j := range 400 {
					frame := fmt.Sprintf(`["%d","%d","realtime:flood%d","phx_join",{"config":{}}]`, j+1, j+1, j)
					if ws.WriteMessage(websocket.TextMessage, []byte(frame)) != nil {
						break
					}
				}
				// Until the server closes the socket: the refusal comes first.
				for {
					_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
					_, data, err := ws.ReadMessage()
					if err != nil {
						break
					}
					if strings.Contains(string(data), "ClientJoinRateLimitReached: Too many joins per second") {
						refused.Add(1)
						once.Do(func() { close(firstRefusal) })
					}
				}
				_ = ws.Close()
			}
			select {
			case <-stop:
				return
			case <-pace.C:
			}
		}
	}()
	defer func() {
		close(stop)
		wg.Wait()
	}()
	select {
	case <-firstRefusal:
	case <-time.After(15 * time.Second):
		t.Fatal("the flood was never refused")
	}
	// Others connect and join while the flood goes on, 20 a second for two
	// seconds.
	pace := time.NewTicker(50 * time.Millisecond)
	defer pace.Stop()
	for i := range 40 {
		<-pace.C
		addr := fmt.Sprintf("203.0.113.%d", i%200+1)
		ws, res, err := b.upgrade("2.0.0", addr)
		if err != nil {
			t.Fatalf("client %d's upgrade during the flood: %v %s", i, err, status(res))
		}
		c := &client{t: t, ws: ws, vsn: "2.0.0"}
		payload := map[string]any{"config": map[string]any{}}
		who := "anonymous"
		if i%2 == 0 {
			who = "signed-in"
			payload["access_token"] = b.token(t, "authenticated", fmt.Sprintf("00000000-0000-0000-0000-%012d", i), time.Hour)
		}
		if got := c.join("1", "realtime:room", payload); !strings.Contains(got, `"status":"ok"`) {
			t.Fatalf("%s client %d's join during the flood: %s", who, i, got)
		}
		_ = ws.Close()
	}
	if refused.Load() == 0 {
		t.Error("the flood's joins were never refused")
	}
}

// TestSocketFloodReserve fills realtime with anonymous sockets from 15
// addresses: each address gets its share of the connected users and the
// anonymous clients together only the part not reserved for signed-in
// users, who still connect.
func TestSocketFloodReserve(t *testing.T) {
	t.Parallel()
	// 40 users: 2 per client, 10 reserved for signed-in clients.
	b := setup(t, fast(realtime.Config{PostgresChanges: false, MaxConcurrentUsers: 40}))
	joined := 0
	for a := range 15 {
		addr := fmt.Sprintf("198.51.100.%d", a+1)
		for range 3 {
			ws, res, err := b.upgrade("2.0.0", addr)
			if err != nil {
				if res == nil || res.StatusCode != http.StatusTooManyRequests {
					t.Fatalf("flood upgrade from %s: %v %s", addr, err, status(res))
				}
				continue
			}
			t.Cleanup(func() { _ = ws.Close() })
			c := &client{t: t, ws: ws, vsn: "2.0.0"}
			got := c.join("1", "realtime:flood", map[string]any{"config": map[string]any{}})
			switch {
			case strings.Contains(got, `"status":"ok"`):
				joined++
			case !strings.Contains(got, "ConnectionRateLimitReached: Too many connected users"):
				t.Fatalf("flood join from %s: %s", addr, got)
			}
		}
	}
	if joined != 30 {
		t.Errorf("%d anonymous sockets joined, want 30 (the 40 users less the 10 reserved)", joined)
	}
	// The third socket of an address is refused at the upgrade.
	if _, res, err := b.upgrade("2.0.0", "198.51.100.1"); err == nil || res == nil || res.StatusCode != http.StatusTooManyRequests ||
		!strings.Contains(status(res), `{"error":"Too many connected users"}`) {
		t.Errorf("another socket from a flooding address: %v %s", err, status(res))
	}
	// Another anonymous client finds the anonymous part full.
	anon := b.dialFrom(t, "2.0.0", "192.0.2.1")
	if got := anon.join("1", "realtime:room", map[string]any{"config": map[string]any{}}); !strings.Contains(got, "ConnectionRateLimitReached: Too many connected users") {
		t.Errorf("anonymous join past the anonymous part: %s", got)
	}
	// Signed-in users connect and join, up to their share each.
	for i := range 5 {
		user := fmt.Sprintf("00000000-0000-0000-0000-%012d", i+1)
		token := b.token(t, "authenticated", user, time.Hour)
		tabs := 2
		if i == 0 {
			tabs = 3 // one more than the share, while the project has room
		}
		for tab := range tabs {
			c := b.dialFrom(t, "2.0.0", fmt.Sprintf("203.0.113.%d", 10*i+tab+1))
			got := c.join("1", "realtime:room", map[string]any{"config": map[string]any{}, "access_token": token})
			if tab == 2 {
				if !strings.Contains(got, "ConnectionRateLimitReached: Too many connected users") {
					t.Errorf("a user's socket past their share: %s", got)
				}
				_ = c.ws.Close()
				continue
			}
			if !strings.Contains(got, `"status":"ok"`) {
				t.Fatalf("signed-in user %d, tab %d, during the flood: %s", i, tab, got)
			}
		}
	}
}

// TestEventsShare floods broadcasts from one client: its own channel is
// closed for too many messages, and a channel of another client keeps
// receiving.
func TestEventsShare(t *testing.T) {
	t.Parallel()
	// 40 events a second, 10 per client.
	b := setup(t, realtime.Config{PostgresChanges: false, MaxEventsPerSecond: 40})
	flood := b.dialFrom(t, "2.0.0", "198.51.100.7")
	flood.join("1", "realtime:noise", map[string]any{"config": map[string]any{"broadcast": map[string]any{"self": true}}})
	victim := b.dialFrom(t, "2.0.0", "203.0.113.1")
	victim.join("1", "realtime:calm", map[string]any{"config": map[string]any{}})
	sender := b.dialFrom(t, "2.0.0", "203.0.113.2")
	sender.join("1", "realtime:calm", map[string]any{"config": map[string]any{}})
	for range 200 {
		flood.push("1", nil, "realtime:noise", "broadcast", map[string]any{"type": "broadcast", "event": "e", "payload": map[string]any{}})
	}
	// The flood goes on until its channel is closed: its share tripped at
	// a tick of the counters.
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		pace := time.NewTicker(10 * time.Millisecond)
		defer pace.Stop()
		for {
			select {
			case <-stop:
				return
			case <-pace.C:
			}
			b, _ := json.Marshal([]any{"1", nil, "realtime:noise", "broadcast", map[string]any{"type": "broadcast", "event": "e", "payload": map[string]any{}}})
			if flood.ws.WriteMessage(websocket.TextMessage, b) != nil {
				return
			}
		}
	}()
	flood.expect(`"message":"Too many messages per second"`)
	close(stop)
	<-done
	for _, event := range []string{"hello", "again"} {
		sender.push("1", nil, "realtime:calm", "broadcast", map[string]any{"type": "broadcast", "event": event, "payload": map[string]any{}})
		if got := victim.next(); !strings.Contains(got, `"event":"`+event+`"`) {
			t.Fatalf("another client's channel got %s, want the broadcast %q", got, event)
		}
	}
}
