package realtime_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/gorilla/websocket"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/realtime"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// bundle is one test's server: a realtime service behind the gateway, on
// its own database.
type bundle struct {
	db   *pgtest.DB
	keys *jwt.Keys
	svc  *realtime.Service
	url  string // http://host
}

func setup(t *testing.T, cfg realtime.Config, opts ...realtime.Option) *bundle {
	t.Helper()
	db := pgtest.NewDB(t)
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return node(t, db, keys, cfg, opts...)
}

// node starts another service on the same database and keys: one node of
// a cluster.
func node(t *testing.T, db *pgtest.DB, keys *jwt.Keys, cfg realtime.Config, opts ...realtime.Option) *bundle {
	t.Helper()
	svc, err := realtime.New(cfg, db.Admin, db.User, keys, opts...)
	if err != nil {
		t.Fatal(err)
	}
	// Tests may speak for a client address (dialFrom), as a proxy in front
	// of Basalt would.
	gw, err := gateway.New(gateway.Config{TrustedProxyHeader: "X-Forwarded-For"}, gateway.Services{Realtime: svc}, keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(func() {
		svc.Close()
		srv.Close()
	})
	// A test may call realtime.send() at once: the node must be listening.
	for deadline := time.Now().Add(10 * time.Second); !realtime.Listening(svc); {
		if time.Now().After(deadline) {
			t.Fatal("the node does not listen for notifications")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return &bundle{db: db, keys: keys, svc: svc, url: srv.URL}
}

// token signs an access token for role (and sub) that expires after ttl.
func (b *bundle) token(t *testing.T, role, sub string, ttl time.Duration) string {
	t.Helper()
	claims := gojwt.MapClaims{"role": role, "exp": time.Now().Add(ttl).Unix(), "iat": time.Now().Unix()}
	if sub != "" {
		claims["sub"] = sub
	}
	tok, err := b.keys.SignHS256(claims)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// client is a raw websocket client speaking one protocol version.
type client struct {
	t   *testing.T
	ws  *websocket.Conn
	vsn string
}

func (b *bundle) dial(t *testing.T, vsn string) *client {
	t.Helper()
	return b.dialFrom(t, vsn, "")
}

// dialFrom opens a socket as a client at addr (empty: the test's own).
func (b *bundle) dialFrom(t *testing.T, vsn, addr string) *client {
	t.Helper()
	ws, res, err := b.upgrade(vsn, addr)
	if err != nil {
		t.Fatalf("upgrade from %q: %v %v", addr, err, status(res))
	}
	t.Cleanup(func() { _ = ws.Close() })
	return &client{t: t, ws: ws, vsn: vsn}
}

// upgrade opens a socket as a client at addr with the anon key.
func (b *bundle) upgrade(vsn, addr string) (*websocket.Conn, *http.Response, error) {
	u := "ws" + strings.TrimPrefix(b.url, "http") + "/realtime/v1/websocket?apikey=" + b.keys.AnonKey + "&vsn=" + vsn
	h := http.Header{}
	if addr != "" {
		h.Set("X-Forwarded-For", addr)
	}
	ws, res, err := websocket.DefaultDialer.Dial(u, h)
	if res != nil && res.Body != nil {
		body, _ := io.ReadAll(res.Body)
		res.Body = io.NopCloser(bytes.NewReader(body))
	}
	return ws, res, err
}

// status describes a refused upgrade's answer.
func status(res *http.Response) string {
	if res == nil {
		return "no answer"
	}
	body, _ := io.ReadAll(res.Body)
	res.Body = io.NopCloser(bytes.NewReader(body))
	return fmt.Sprintf("%d %s", res.StatusCode, bytes.TrimSpace(body))
}

// sendRaw writes a text frame as is.
func (c *client) sendRaw(s string) {
	c.t.Helper()
	if err := c.ws.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
		c.t.Fatal(err)
	}
}

// push sends a message in the client's version.
func (c *client) push(joinRef, ref any, topic, event string, payload any) {
	c.t.Helper()
	var v any
	if c.vsn == "2.0.0" {
		v = []any{joinRef, ref, topic, event, payload}
	} else {
		v = map[string]any{"join_ref": joinRef, "ref": ref, "topic": topic, "event": event, "payload": payload}
	}
	b, _ := json.Marshal(v)
	c.sendRaw(string(b))
}

// frame reads the next frame (binary reports true).
func (c *client) frame(timeout time.Duration) ([]byte, bool, error) {
	_ = c.ws.SetReadDeadline(time.Now().Add(timeout))
	typ, data, err := c.ws.ReadMessage()
	return data, typ == websocket.BinaryMessage, err
}

// next reads the next text frame, failing the test after 5 s.
func (c *client) next() string {
	c.t.Helper()
	data, bin, err := c.frame(5 * time.Second)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	if bin {
		c.t.Fatalf("got binary frame % x, want text", data)
	}
	return string(data)
}

// expect reads frames until one contains every part (skipping others).
func (c *client) expect(parts ...string) string {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		data, _, err := c.frame(time.Until(deadline))
		if err != nil {
			c.t.Fatalf("waiting for %q: %v", parts, err)
		}
		ok := true
		for _, p := range parts {
			ok = ok && bytes.Contains(data, []byte(p))
		}
		if ok {
			return string(data)
		}
	}
	c.t.Fatalf("no frame with %q", parts)
	return ""
}

// roundTrip pushes a heartbeat and returns the frames that arrive before
// its reply. The server handles a socket's messages one after another and
// sends its frames in the order they were queued, so the reply is the
// positive signal that whatever this socket pushed earlier has been dealt
// with, and whatever that queued for it has been read.
func (c *client) roundTrip(ref string) []string {
	c.t.Helper()
	c.push(nil, ref, "phoenix", "heartbeat", map[string]any{})
	reply := `[null,"` + ref + `","phoenix","phx_reply",{"status":"ok","response":{}}]`
	var before []string
	for {
		f := c.next()
		if f == reply {
			return before
		}
		before = append(before, f)
	}
}

// join joins topic with payload and returns the reply.
func (c *client) join(ref, topic string, payload any) string {
	c.t.Helper()
	c.push(ref, ref, topic, "phx_join", payload)
	return c.expect(`"phx_reply"`)
}
