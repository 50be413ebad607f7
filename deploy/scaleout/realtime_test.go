package scaleout

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// socket is a realtime client speaking vsn 1.0.0 (JSON objects), as
// realtime-js does with that version.
type socket struct {
	t      *testing.T
	ws     *websocket.Conn
	frames chan []byte // every text frame, read by one goroutine: a gorilla
	// connection is unusable after a read times out, so reads never time out
}

func (n *node) dialRealtime(t *testing.T) *socket {
	t.Helper()
	u := strings.Replace(n.base, "http://", "ws://", 1) + "/realtime/v1/websocket?" +
		url.Values{"apikey": {n.anon}, "vsn": {"1.0.0"}}.Encode()
	ws, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatalf("%s: dial realtime: %v", n.name, err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	s := &socket{t: t, ws: ws, frames: make(chan []byte, 64)}
	go func() {
		defer close(s.frames)
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			s.frames <- data
		}
	}()
	return s
}

// within returns the next frame holding every part, or nil after d.
func (s *socket) within(d time.Duration, parts ...string) []byte {
	timeout := time.After(d)
	for {
		select {
		case data, ok := <-s.frames:
			if !ok {
				return nil
			}
			match := true
			for _, p := range parts {
				match = match && bytes.Contains(data, []byte(p))
			}
			if match {
				return data
			}
		case <-timeout:
			return nil
		}
	}
}

func (s *socket) push(ref, topic, event string, payload any) {
	s.t.Helper()
	b, _ := json.Marshal(map[string]any{"join_ref": "1", "ref": ref, "topic": topic, "event": event, "payload": payload})
	if err := s.ws.WriteMessage(websocket.TextMessage, b); err != nil {
		s.t.Fatal(err)
	}
}

// expect waits up to 10 s for a frame holding every part.
func (s *socket) expect(parts ...string) string {
	s.t.Helper()
	data := s.within(10*time.Second, parts...)
	if data == nil {
		s.t.Fatalf("no frame with %q", parts)
	}
	return string(data)
}

// crossNodeRealtime: a broadcast sent on one node and presence tracked on
// it reach a client of the same channel connected to the other node.
func crossNodeRealtime(t *testing.T, top *topology) {
	t.Helper()
	onA, onB := top.a.dialRealtime(t), top.b.dialRealtime(t)
	join := func(s *socket, key string) {
		s.push("1", "realtime:scaleout", "phx_join", map[string]any{"config": map[string]any{
			"broadcast": map[string]any{"self": false}, "presence": map[string]any{"key": key, "enabled": true}}})
		s.expect(`"phx_reply"`, `"status":"ok"`)
	}
	join(onA, "user-a")
	join(onB, "user-b")
	// The nodes find each other through LISTEN/NOTIFY; give the listeners
	// a moment, then retry the broadcast until the other side hears it.
	deadline := time.Now().Add(15 * time.Second)
	heard := false
	for attempt := 0; !heard && time.Now().Before(deadline); attempt++ {
		onA.push("2", "realtime:scaleout", "broadcast", map[string]any{"type": "broadcast", "event": "hop", "payload": map[string]any{"n": attempt}})
		heard = onB.within(time.Second, `"event":"hop"`) != nil
	}
	if !heard {
		t.Fatal("a broadcast sent through node A never reached node B's client")
	}
	onA.push("3", "realtime:scaleout", "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"via": "a"}})
	onB.expect(`"presence_diff"`, `"user-a"`, `"via":"a"`)
}
