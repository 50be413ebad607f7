package app_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/gorilla/websocket"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/realtime"
)

// rtApp is a realtime service on the app's database, behind the gateway.
type rtApp struct {
	t    *testing.T
	keys *jwt.Keys
	url  string
}

func (e *env) realtime(t *testing.T) *rtApp {
	t.Helper()
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	svc, err := realtime.New(realtime.Config{PostgresChanges: false, ErrorBackoff: time.Millisecond}, e.db.Admin, e.db.User, keys)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(gateway.Config{}, gateway.Services{Realtime: svc}, keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(func() {
		svc.Close()
		srv.Close()
	})
	return &rtApp{t: t, keys: keys, url: "ws" + strings.TrimPrefix(srv.URL, "http") + "/realtime/v1/websocket?vsn=1.0.0&apikey=" + keys.AnonKey}
}

// token is uid's access token ("" for the anon key).
func (r *rtApp) token(uid string) string {
	if uid == "" {
		return r.keys.AnonKey
	}
	tok, err := r.keys.SignHS256(gojwt.MapClaims{"sub": uid, "role": "authenticated", "exp": time.Now().Add(time.Hour).Unix()})
	if err != nil {
		r.t.Fatal(err)
	}
	return tok
}

// rtSocket is one vsn 1.0.0 socket.
type rtSocket struct {
	t  *testing.T
	ws *websocket.Conn
}

func (r *rtApp) dial() *rtSocket {
	r.t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(r.url, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { _ = ws.Close() })
	return &rtSocket{t: r.t, ws: ws}
}

// send pushes event on topic and returns the reply with ref.
func (s *rtSocket) send(topic, event, ref string, payload any) string {
	s.t.Helper()
	frames := s.sendAll(topic, event, ref, payload)
	return frames[len(frames)-1]
}

// sendAll pushes event on topic and returns every frame read until the
// reply with ref, that reply last.
func (s *rtSocket) sendAll(topic, event, ref string, payload any) []string {
	s.t.Helper()
	s.push(topic, event, ref, payload)
	_ = s.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	var frames []string
	for {
		_, data, err := s.ws.ReadMessage()
		if err != nil {
			s.t.Fatalf("%s on %s: %v", event, topic, err)
		}
		frames = append(frames, string(data))
		if strings.Contains(string(data), `"phx_reply"`) && strings.Contains(string(data), `"ref":"`+ref+`"`) {
			return frames
		}
	}
}

// push sends a frame without waiting for anything.
func (s *rtSocket) push(topic, event, ref string, payload any) {
	s.t.Helper()
	b, _ := json.Marshal(map[string]any{"topic": topic, "event": event, "payload": payload, "ref": ref, "join_ref": "1"})
	if err := s.ws.WriteMessage(websocket.TextMessage, b); err != nil {
		s.t.Fatal(err)
	}
}

// join joins a private channel as uid (with presence for online-users).
func (s *rtSocket) join(r *rtApp, topic, uid string) string {
	cfg := map[string]any{"private": true, "broadcast": map[string]any{"ack": true}}
	if topic == "online-users" {
		cfg["presence"] = map[string]any{"enabled": true, "key": uid}
	}
	return s.send("realtime:"+topic, "phx_join", "1", map[string]any{"config": cfg, "access_token": r.token(uid)})
}

// TestRealtimeChannels: the app's channels are private, joined by signed-in
// users who are not suspended; members track their presence on
// online-users and broadcast nowhere.
func TestRealtimeChannels(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.realtime(t)
	fan, suspended := e.signUp("fan"), e.signUp("fan")
	e.exec(`UPDATE public.public_profiles SET is_suspended = true, suspended_reason = 'spam' WHERE id = $1`, suspended)
	const refused = `"reason":"Unauthorized: You do not have permissions to read from this Channel topic: `
	for _, topic := range []string{"online-users", "live:wallets:1"} {
		if got := r.dial().join(r, topic, fan); !strings.Contains(got, `"status":"ok"`) {
			t.Errorf("a fan's join of %s = %s", topic, got)
		}
		for who, uid := range map[string]string{"a visitor": "", "a suspended fan": suspended} {
			if got := r.dial().join(r, topic, uid); !strings.Contains(got, refused+topic) {
				t.Errorf("%s's join of %s = %s", who, topic, got)
			}
		}
	}
	for _, topic := range []string{"anything", "online-users-2"} {
		if got := r.dial().join(r, topic, fan); !strings.Contains(got, refused+topic) {
			t.Errorf("a fan's join of %s = %s", topic, got)
		}
	}
	s := r.dial()
	s.join(r, "online-users", fan)
	if got := s.send("realtime:online-users", "presence", "2", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{}}); !strings.Contains(got, `"status":"ok"`) {
		t.Errorf("a fan's track = %s", got)
	}
	// A broadcast without the write policy is dropped without a reply,
	// even with ack.
	s.push("realtime:online-users", "broadcast", "3", map[string]any{"type": "broadcast", "event": "x", "payload": map[string]any{}})
	for _, f := range s.sendAll("phoenix", "heartbeat", "4", map[string]any{}) {
		if strings.Contains(f, `"ref":"3"`) {
			t.Errorf("a broadcast on online-users was answered: %s", f)
		}
	}

	// Suspending the fan and asking realtime to re-run the policies closes
	// their channels (admin_suspend_user does both).
	live := r.dial()
	live.join(r, "live:wallets:2", fan)
	e.exec(`UPDATE public.public_profiles SET is_suspended = true WHERE id = $1`, fan)
	e.exec(`SELECT realtime.reauthorize_user($1)`, fan)
	_ = live.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for _, want := range []string{`"event":"system"`, `"event":"phx_close"`} {
		if _, data, err := live.ws.ReadMessage(); err != nil || !strings.Contains(string(data), want) {
			t.Errorf("the suspended fan's live channel got %s %v, want %s", data, err, want)
		}
	}
}
