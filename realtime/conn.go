package realtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/basaltdev/basalt/internal/jwt"
)

// conn is one client websocket. One goroutine reads and handles the
// client's frames in order; another, started when something is queued and
// gone once the queue is empty, writes. Everything sent to the client goes
// through a bounded queue, so a fan-out never waits for a slow client, and
// an idle socket costs one goroutine.
type conn struct {
	s       *Service
	ws      *websocket.Conn
	vsn     string
	token   string      // the socket's apikey JWT
	claims  *jwt.Claims // its verified claims
	headers json.RawMessage
	addr    string // the client's address, as the gateway vouches for it
	// client is whose share of the limits the socket uses: its address's
	// until a join counts it as a connected user of the join's client.
	client atomic.Pointer[clientShare]
	// condemned: the socket is being closed for a limit; its frames are
	// no longer handled.
	condemned atomic.Bool

	mu     sync.Mutex
	queue  []frame
	queued int
	closed bool
	// writing: a writer goroutine is draining the queue; it stays set
	// while the writer holds a batch taken from it, until it finds the
	// queue empty.
	writing  bool
	channels map[string]*channel // by topic
	counted  bool                // counts toward the concurrent users limit
	opened   time.Time
	ended    *endCause // why the socket ended: the first abort's cause
}

// endCause is why a socket ended, for the log line written when it does.
// byServer tells a close the server decided (idle, slow, limits) from the
// client leaving, which is routine.
type endCause struct {
	why      string
	byServer bool
	err      error
}

// errQueueFull is why a client that fell too far behind is dropped.
var errQueueFull = errors.New("send queue over its limit")

// send queues a frame; it never blocks. A client whose queue is over the
// limit is disconnected at once, like the reference's socket process
// killed at its heap limit: no close frame, the client sees 1006. (The
// batch the writer holds is not counted, so a socket holds at most twice
// the limit.)
func (c *conn) send(f frame) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	if c.queued+len(f.wire) > c.s.cfg.MaxQueueBytes {
		queued := c.queued
		c.mu.Unlock()
		c.s.log.Warn("realtime: dropping slow client", "err", errQueueFull, "queued_bytes", queued)
		c.abort(endCause{why: "send queue over its limit", byServer: true, err: errQueueFull})
		return
	}
	c.queue = append(c.queue, f)
	c.queued += len(f.wire)
	start := !c.writing
	c.writing = true
	c.mu.Unlock()
	if start {
		go c.writeLoop()
	}
}

// reply sends phx_reply for a client push.
func (c *conn) reply(joinRef, ref json.RawMessage, topic, status string, response json.RawMessage) {
	if response == nil {
		response = json.RawMessage("{}")
	}
	payload := make([]byte, 0, len(response)+32)
	payload = append(payload, `{"status":`...)
	payload = append(payload, quote(status)...)
	payload = append(payload, `,"response":`...)
	payload = append(payload, response...)
	payload = append(payload, '}')
	c.send(encodeText(c.vsn, joinRef, ref, topic, "phx_reply", payload))
}

// push sends a server push on a channel (ref null).
func (c *conn) push(joinRef json.RawMessage, topic, event string, payload json.RawMessage) {
	c.send(encodeText(c.vsn, joinRef, nil, topic, event, payload))
}

// writeLoop drains the queue into the socket and ends when it is empty.
// Everything queued when it looks is written with one system call (the
// frames are already encoded, so a batch is a vector of byte slices, many
// of them shared with other sockets); control frames, written by the
// websocket library from the read loop, go out between two such writes,
// never inside one (a net.Conn serialises its writes).
func (c *conn) writeLoop() {
	var batch []frame
	var vec net.Buffers
	nc := c.ws.NetConn()
	for {
		c.mu.Lock()
		if len(c.queue) == 0 || c.closed {
			c.writing = false
			c.mu.Unlock()
			return
		}
		batch, c.queue = c.queue, batch[:0]
		c.queued = 0
		c.mu.Unlock()
		vec = vec[:0]
		for _, f := range batch {
			vec = append(vec, f.wire)
		}
		bufs := vec // WriteTo consumes the slice it is called on
		_ = nc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := bufs.WriteTo(nc); err != nil {
			c.abort(writeCause(err))
			return
		}
		clear(batch)
		clear(vec)
	}
}

// writeTimeout is how long one frame may take to reach a client that
// stopped reading before the socket is dropped.
const writeTimeout = 30 * time.Second

// abort closes the socket without a close frame and stops both loops. The
// first caller's cause is the one logged when the socket ends.
func (c *conn) abort(cause endCause) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.ended = &cause
	c.queue = nil
	c.mu.Unlock()
	_ = c.ws.NetConn().Close()
}

// closeGracefully writes what is queued (including the batch the writer
// holds), then closes with a close frame.
func (c *conn) closeGracefully(code int, reason string, cause endCause) {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		empty := (len(c.queue) == 0 && !c.writing) || c.closed
		c.mu.Unlock()
		if empty {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
	c.abort(cause)
}

// readLoop reads frames until the socket closes, then leaves every channel.
func (c *conn) readLoop() {
	defer c.cleanup()
	c.ws.SetReadLimit(c.s.cfg.MaxFrameBytes)
	for {
		_ = c.ws.SetReadDeadline(time.Now().Add(c.s.cfg.IdleTimeout))
		typ, data, err := c.ws.ReadMessage()
		if err != nil {
			c.abort(c.readCause(err))
			return
		}
		var m *message
		switch {
		case typ == websocket.BinaryMessage && c.vsn == vsn2:
			m, err = decodeBinary(data)
		case typ == websocket.TextMessage:
			m, err = decodeText(c.vsn, data)
		default:
			err = errFrame
		}
		if err != nil {
			// The reference logs malformed messages and keeps the socket.
			c.s.log.Debug("realtime: ignoring frame", "err", err)
			continue
		}
		if c.condemned.Load() {
			continue
		}
		c.handle(m)
	}
}

// readCause classifies the error that ended the read loop.
func (c *conn) readCause(err error) endCause {
	var ce *websocket.CloseError
	var ne net.Error
	switch {
	case errors.As(err, &ce):
		return endCause{why: fmt.Sprintf("client sent close %d", ce.Code), err: err}
	case errors.Is(err, websocket.ErrReadLimit):
		return endCause{why: "frame over the size limit", byServer: true, err: err}
	case errors.As(err, &ne) && ne.Timeout():
		return endCause{why: fmt.Sprintf("idle: nothing received for %s", c.s.cfg.IdleTimeout), byServer: true, err: err}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return endCause{why: "connection closed", err: err}
	default:
		return endCause{why: "read failed", err: err}
	}
}

// writeCause classifies a failed write.
func writeCause(err error) endCause {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return endCause{why: fmt.Sprintf("write timeout: the client read nothing for %s", writeTimeout), byServer: true, err: err}
	}
	return endCause{why: "write failed", err: err}
}

// logEnd writes the socket's last line: why it ended. A close the server
// decided is logged at info, a client leaving at debug.
func (c *conn) logEnd(channels int) {
	c.mu.Lock()
	cause := c.ended
	c.mu.Unlock()
	if cause == nil {
		return
	}
	level := slog.LevelDebug
	if cause.byServer {
		level = slog.LevelInfo
	}
	attrs := []slog.Attr{slog.String("reason", cause.why), slog.Bool("by_server", cause.byServer),
		slog.Int("channels", channels), slog.String("open_for", time.Since(c.opened).Round(time.Millisecond).String()),
		slog.String("vsn", c.vsn)}
	if cause.err != nil {
		attrs = append(attrs, slog.String("err", cause.err.Error()))
	}
	c.s.log.LogAttrs(c.s.ctx, level, "realtime: socket closed", attrs...)
}

// cleanup leaves every channel when the socket ends.
func (c *conn) cleanup() {
	c.abort(endCause{why: "read loop ended", byServer: true})
	c.mu.Lock()
	chans := make([]*channel, 0, len(c.channels))
	for _, ch := range c.channels {
		chans = append(chans, ch)
	}
	c.channels = map[string]*channel{}
	counted := c.counted
	c.counted = false
	c.mu.Unlock()
	for _, ch := range chans {
		ch.stop()
	}
	c.logEnd(len(chans))
	c.s.clients.release(c.client.Load(), counted)
	if counted {
		c.s.cluster.usersChanged()
	}
	c.s.conns.Add(-1)
	if c.s.metrics != nil {
		c.s.metrics.Sockets.Dec()
	}
}

// channel returns the joined channel of a topic.
func (c *conn) channel(topic string) *channel {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.channels[topic]
}

// handle routes one client message. A panic while handling it is the
// channel crashing, as a Phoenix channel process would: the channel stops
// and the client gets phx_error (it then rejoins), the socket lives on.
func (c *conn) handle(m *message) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		c.s.log.Error("realtime: channel crashed", "topic", m.Topic, "event", m.Event, "panic", fmt.Sprint(v))
		if ch := c.channel(m.Topic); ch != nil && ch.stop() {
			c.mu.Lock()
			if c.channels[ch.topic] == ch {
				delete(c.channels, ch.topic)
			}
			c.mu.Unlock()
			c.send(encodeText(c.vsn, ch.joinRef, ch.joinRef, ch.topic, "phx_error", json.RawMessage("{}")))
		}
	}()
	switch {
	case m.Topic == "phoenix" && m.Event == "heartbeat":
		c.reply(nil, m.Ref, "phoenix", "ok", nil)
		return
	case m.Event == "phx_join":
		c.s.join(c, m)
		return
	}
	ch := c.channel(m.Topic)
	if ch == nil {
		// As Phoenix: leaving a topic that is not joined succeeds, anything
		// else on it is refused.
		if m.Event == "phx_leave" {
			c.reply(m.JoinRef, m.Ref, m.Topic, "ok", nil)
			return
		}
		c.unmatched(m)
		return
	}
	if m.Event == "phx_leave" && m.JoinRef != nil && !bytes.Equal(m.JoinRef, ch.joinRef) {
		// The client raced a server close of an earlier join: Phoenix does
		// not answer.
		return
	}
	// A client over its own share of events loses the channel it pushes
	// on: the reference closes channels only when they receive, and a
	// client pushing where nobody listens would never be stopped.
	client := c.client.Load()
	client.events.Add(1)
	if client.events.Tripped() && m.Event != "phx_leave" {
		ch.shutdown(msgTooManyMessages)
		return
	}
	switch m.Event {
	case "phx_leave":
		c.reply(m.JoinRef, m.Ref, m.Topic, "ok", nil)
		ch.close()
	case "broadcast":
		ch.handleBroadcast(m)
	case "presence":
		ch.handlePresence(m)
	case "access_token":
		ch.handleAccessToken(m)
	default:
		// Other events are ignored (they still count toward the rate).
	}
}

// unmatched refuses a message for a topic no channel serves. Phoenix's
// reply carries no join_ref.
func (c *conn) unmatched(m *message) {
	c.reply(nil, m.Ref, m.Topic, "error", json.RawMessage(`{"reason":"unmatched topic"}`))
}

// upgradeError is a refused upgrade: status and the reference's message.
type upgradeError struct {
	status int
	msg    string
}

// writeUpgradeError answers a refused upgrade as the reference does, after
// its pause.
func (s *Service) writeUpgradeError(w http.ResponseWriter, e upgradeError) {
	s.log.Info("realtime: upgrade refused", "status", e.status, "reason", e.msg)
	if d := s.cfg.UpgradeErrorBackoff; d > 0 {
		time.Sleep(d)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": e.msg})
}
