package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// Topics every realtime client joins, as the Backline app does: its own
// notifications (postgres_changes filtered to the user), the shared
// presence channel of the online dots, and a broadcast room.
const (
	onlineTopic = "realtime:online-users"
	roomTopic   = "realtime:soak-room"
	// rtPushTimeout is realtime-js's push and join timeout.
	rtPushTimeout = 10 * time.Second
	// rtSubscribeTimeout bounds the wait for "Subscribed to PostgreSQL"
	// (the server gives up after 15 s).
	rtSubscribeTimeout = 20 * time.Second
)

func notificationsTopic(uid string) string { return "realtime:notifications:" + uid }

// rtFrame is a vsn 1.0.0 frame: a JSON object. Refs are strings (null in
// server pushes).
type rtFrame struct {
	Topic   string          `json:"topic"`
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
	Ref     *string         `json:"ref"`
	JoinRef *string         `json:"join_ref,omitempty"`
}

// rtReply is a phx_reply's payload.
type rtReply struct {
	Status   string          `json:"status"`
	Response json.RawMessage `json:"response"`
}

// errClosedByUs ends a call on a client the soak closed itself (a fault
// is coming, a fan retired, the run is over): not a failure.
var errClosedByUs = errors.New("closed by the soak")

// noteSeen is one notification as a client received it.
type noteSeen struct {
	userID   string
	created  time.Time
	received time.Time
	count    int
	badIDs   bool // the event's ids did not name the join's binding
}

// rtLatency is one delivery: when it arrived and how long it took.
type rtLatency struct {
	at time.Time
	d  time.Duration
}

// rtClient is one websocket as realtime-js holds it for a signed-in tab:
// one socket, three channels. What it received is kept for the checks.
type rtClient struct {
	uid  string
	user *user
	ws   *websocket.Conn
	seq  atomic.Int64
	wmu  sync.Mutex // one writer at a time

	pmu     sync.Mutex
	pending map[string]chan rtReply

	dead    chan struct{} // closed when the client ends, by us or not
	done    chan struct{} // closed when the reader returned
	ending  atomic.Bool
	live    chan struct{} // closed on "Subscribed to PostgreSQL"
	liveSet sync.Once

	mu        sync.Mutex
	opened    time.Time // the upgrade succeeded
	liveAt    time.Time // the notifications subscription is live
	roomAt    time.Time // the room join was answered
	tracked   bool
	closedAt  time.Time
	lostWhy   string // set when the server or the network ended it
	bindingID int64
	joinRefs  map[string]string // topic → join ref
	notes     map[string]*noteSeen
	bcasts    map[string]int
	bcastLat  []rtLatency
	view      map[string]map[string]bool // presence key → phx_refs
	joinsSeen int                        // presence joins of other users
	sentToken string
	firstBad  string // the first event that did not name the binding
}

// dialRealtime opens the socket as realtime-js does: the anon key as
// apikey in the query, vsn 1.0.0.
func dialRealtime(wsURL, uid string, u *user) (*rtClient, error) {
	d := websocket.Dialer{HandshakeTimeout: rtPushTimeout}
	ws, res, err := d.Dial(wsURL, http.Header{"User-Agent": {clientInfo}})
	if err != nil {
		if res != nil {
			return nil, &requestError{classify(res.StatusCode), fmt.Sprintf("websocket upgrade: %d", res.StatusCode)}
		}
		return nil, &requestError{noResponse, "websocket upgrade: " + err.Error()}
	}
	ws.SetReadLimit(5 << 20)
	c := &rtClient{uid: uid, user: u, ws: ws, pending: map[string]chan rtReply{},
		dead: make(chan struct{}), done: make(chan struct{}), live: make(chan struct{}),
		opened: time.Now(), joinRefs: map[string]string{}, notes: map[string]*noteSeen{},
		bcasts: map[string]int{}, view: map[string]map[string]bool{}}
	go c.read()
	return c, nil
}

func classify(status int) outcome {
	if status >= 500 {
		return status5xx
	}
	return failed
}

// send writes one frame; ref is returned for replies.
func (c *rtClient) send(topic, event string, payload any, joinRef string) (string, chan rtReply, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return "", nil, err
	}
	ref := strconv.FormatInt(c.seq.Add(1), 10)
	f := rtFrame{Topic: topic, Event: event, Payload: b, Ref: &ref}
	if joinRef != "" {
		f.JoinRef = &joinRef
	} else if event == "phx_join" {
		f.JoinRef = &ref
	}
	ch := make(chan rtReply, 1)
	c.pmu.Lock()
	c.pending[ref] = ch
	c.pmu.Unlock()
	if event == "phx_join" {
		// Known before the reply can arrive: the reader takes the binding
		// id from the notifications join's reply.
		c.mu.Lock()
		c.joinRefs[topic] = ref
		c.mu.Unlock()
	}
	data, _ := json.Marshal(f)
	c.wmu.Lock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(rtPushTimeout))
	err = c.ws.WriteMessage(websocket.TextMessage, data)
	c.wmu.Unlock()
	if err != nil {
		c.forget(ref)
		return "", nil, c.ended(&requestError{noResponse, fmt.Sprintf("%s %s: write: %v", topic, event, err)})
	}
	return ref, ch, nil
}

func (c *rtClient) forget(ref string) {
	c.pmu.Lock()
	delete(c.pending, ref)
	c.pmu.Unlock()
}

// call sends a push and waits for its reply, up to timeout.
func (c *rtClient) call(topic, event string, payload any, joinRef string, timeout time.Duration) (rtReply, error) {
	ref, ch, err := c.send(topic, event, payload, joinRef)
	if err != nil {
		return rtReply{}, err
	}
	defer c.forget(ref)
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-ch:
		if r.Status != "ok" {
			return r, &requestError{failed, fmt.Sprintf("%s %s: %s %s", topic, event, r.Status, clip(r.Response))}
		}
		return r, nil
	case <-c.dead:
		return rtReply{}, c.ended(nil)
	case <-t.C:
		return rtReply{}, &requestError{noResponse, fmt.Sprintf("%s %s: no reply within %s", topic, event, timeout)}
	}
}

// ended is the error of a call on a client that ended: errClosedByUs when
// the soak closed it, else why it was lost (or err).
func (c *rtClient) ended(err error) error {
	select {
	case <-c.dead:
	default:
		return err
	}
	c.mu.Lock()
	why := c.lostWhy
	c.mu.Unlock()
	if why == "" {
		return errClosedByUs
	}
	return &requestError{noResponse, "connection lost: " + why}
}

// join sends phx_join with the user's access token, as realtime-js does
// once signed in.
func (c *rtClient) join(topic string, config map[string]any) (rtReply, error) {
	tok := c.user.token()
	c.mu.Lock()
	c.sentToken = tok
	c.mu.Unlock()
	ref, ch, err := c.send(topic, "phx_join", map[string]any{"config": config, "access_token": tok}, "")
	if err != nil {
		return rtReply{}, err
	}
	defer c.forget(ref)
	t := time.NewTimer(rtPushTimeout)
	defer t.Stop()
	select {
	case r := <-ch:
		if r.Status != "ok" {
			return r, &requestError{failed, fmt.Sprintf("join %s: %s %s", topic, r.Status, clip(r.Response))}
		}
		return r, nil
	case <-c.dead:
		return rtReply{}, c.ended(nil)
	case <-t.C:
		return rtReply{}, &requestError{noResponse, fmt.Sprintf("join %s: no reply within %s", topic, rtPushTimeout)}
	}
}

func (c *rtClient) joinRef(topic string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.joinRefs[topic]
}

// joinNotifications subscribes to the user's notification inserts (the
// app's notification bell) and waits until the subscription is live.
func (c *rtClient) joinNotifications() error {
	r, err := c.join(notificationsTopic(c.uid), map[string]any{
		"broadcast": map[string]any{"ack": false, "self": false},
		"presence":  map[string]any{"key": "", "enabled": false},
		"postgres_changes": []map[string]any{{"event": "INSERT", "schema": "public", "table": "notifications",
			"filter": "user_id=eq." + c.uid}},
		"private": false,
	})
	if err != nil {
		return err
	}
	if _, ok := c.binding(r); !ok {
		return &requestError{failed, "join notifications: the reply does not echo the binding: " + clip(r.Response)}
	}
	t := time.NewTimer(rtSubscribeTimeout)
	defer t.Stop()
	select {
	case <-c.live:
		return nil
	case <-c.dead:
		return c.ended(nil)
	case <-t.C:
		return &requestError{noResponse, fmt.Sprintf("no \"Subscribed to PostgreSQL\" within %s", rtSubscribeTimeout)}
	}
}

// binding reads the server id of the notifications binding from the
// join reply, which must echo the binding as sent.
func (c *rtClient) binding(r rtReply) (int64, bool) {
	var resp struct {
		PostgresChanges []struct {
			ID     int64  `json:"id"`
			Filter string `json:"filter"`
		} `json:"postgres_changes"`
	}
	if err := json.Unmarshal(r.Response, &resp); err != nil || len(resp.PostgresChanges) != 1 ||
		resp.PostgresChanges[0].Filter != "user_id=eq."+c.uid {
		return 0, false
	}
	return resp.PostgresChanges[0].ID, true
}

// joinOnline joins the shared presence channel under the user's id.
func (c *rtClient) joinOnline() error {
	_, err := c.join(onlineTopic, map[string]any{
		"broadcast":        map[string]any{"ack": false, "self": false},
		"presence":         map[string]any{"key": c.uid, "enabled": true},
		"postgres_changes": []any{}, "private": true, // as the app: members only (sql/app/0030)
	})
	return err
}

// track is channel.track({online_at}), once per join.
func (c *rtClient) track() error {
	_, err := c.call(onlineTopic, "presence", map[string]any{"type": "presence", "event": "track",
		"payload": map[string]any{"online_at": time.Now().UTC().Format(time.RFC3339Nano)}}, c.joinRef(onlineTopic), rtPushTimeout)
	if err == nil {
		c.mu.Lock()
		c.tracked = true
		c.mu.Unlock()
	}
	return err
}

// joinRoom joins the broadcast room with acknowledged sends.
func (c *rtClient) joinRoom() error {
	_, err := c.join(roomTopic, map[string]any{
		"broadcast":        map[string]any{"ack": true, "self": false},
		"presence":         map[string]any{"key": "", "enabled": false},
		"postgres_changes": []any{}, "private": false,
	})
	if err == nil {
		c.mu.Lock()
		c.roomAt = time.Now()
		c.mu.Unlock()
	}
	return err
}

// broadcast is channel.send({type: 'broadcast', ...}) with ack: true.
func (c *rtClient) broadcast(id string) error {
	_, err := c.call(roomTopic, "broadcast", map[string]any{"type": "broadcast", "event": "soak",
		"payload": map[string]any{"id": id, "from": c.uid, "sent_at": time.Now().UnixNano()}}, c.joinRef(roomTopic), rtPushTimeout)
	return err
}

// heartbeat is the phoenix heartbeat; like realtime-js, it then passes a
// changed access token (a refresh, a new sign-in) on to every channel.
func (c *rtClient) heartbeat(timeout time.Duration) error {
	if _, err := c.call("phoenix", "heartbeat", map[string]any{}, "", timeout); err != nil {
		return err
	}
	tok := c.user.token()
	c.mu.Lock()
	changed := tok != c.sentToken
	c.sentToken = tok
	c.mu.Unlock()
	if !changed {
		return nil
	}
	for _, topic := range []string{notificationsTopic(c.uid), onlineTopic, roomTopic} {
		if _, _, err := c.send(topic, "access_token", map[string]any{"access_token": tok}, c.joinRef(topic)); err != nil {
			return err
		}
	}
	return nil
}

// read dispatches every frame the server sends until the socket ends.
func (c *rtClient) read() {
	defer close(c.done)
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			c.lose("read: " + err.Error())
			return
		}
		now := time.Now()
		var f rtFrame
		if err := json.Unmarshal(data, &f); err != nil {
			c.lose("undecodable frame: " + clip(data))
			continue
		}
		switch f.Event {
		case "phx_reply":
			c.reply(f)
		case "postgres_changes":
			c.onChange(f.Payload, now)
		case "broadcast":
			c.onBroadcast(f.Payload, now)
		case "presence_state":
			c.onPresence(f.Payload, true)
		case "presence_diff":
			c.onPresence(f.Payload, false)
		case "system":
			c.onSystem(f)
		case "phx_close", "phx_error":
			c.lose(fmt.Sprintf("the server sent %s on %s", f.Event, f.Topic))
		}
	}
}

func (c *rtClient) reply(f rtFrame) {
	if f.Ref == nil {
		return
	}
	var r rtReply
	_ = json.Unmarshal(f.Payload, &r)
	topic := notificationsTopic(c.uid)
	if f.Topic == topic && *f.Ref == c.joinRef(topic) && r.Status == "ok" {
		// Set here, before the next frame is read: a change may follow
		// the reply at once.
		if id, ok := c.binding(r); ok {
			c.mu.Lock()
			c.bindingID = id
			c.mu.Unlock()
		}
	}
	c.pmu.Lock()
	ch := c.pending[*f.Ref]
	c.pmu.Unlock()
	if ch != nil {
		select {
		case ch <- r:
		default:
		}
	}
}

func (c *rtClient) onSystem(f rtFrame) {
	var m struct {
		Extension, Status, Message string
	}
	_ = json.Unmarshal(f.Payload, &m)
	if m.Status == "ok" && m.Extension == "postgres_changes" && f.Topic == notificationsTopic(c.uid) {
		c.liveSet.Do(func() {
			c.mu.Lock()
			c.liveAt = time.Now()
			c.mu.Unlock()
			close(c.live)
		})
		return
	}
	if m.Status == "error" {
		c.lose(fmt.Sprintf("system error on %s: %s", f.Topic, m.Message))
	}
}

// onChange records a notification insert: which row, for whom, when it
// was created and when it arrived.
func (c *rtClient) onChange(payload json.RawMessage, now time.Time) {
	var p struct {
		IDs  []int64 `json:"ids"`
		Data struct {
			Type   string `json:"type"`
			Record struct {
				ID        string `json:"id"`
				UserID    string `json:"user_id"`
				CreatedAt string `json:"created_at"`
			} `json:"record"`
		} `json:"data"`
	}
	if err := json.Unmarshal(payload, &p); err != nil || p.Data.Record.ID == "" {
		c.lose("undecodable postgres_changes event: " + clip(payload))
		return
	}
	created, _ := time.Parse(time.RFC3339Nano, p.Data.Record.CreatedAt)
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.notes[p.Data.Record.ID]
	if n == nil {
		n = &noteSeen{userID: p.Data.Record.UserID, created: created, received: now}
		c.notes[p.Data.Record.ID] = n
	}
	n.count++
	if len(p.IDs) != 1 || p.IDs[0] != c.bindingID || p.Data.Type != "INSERT" {
		n.badIDs = true
		if c.firstBad == "" {
			c.firstBad = fmt.Sprintf("binding %d, event %s", c.bindingID, clip(payload))
		}
	}
}

func (c *rtClient) onBroadcast(payload json.RawMessage, now time.Time) {
	var p struct {
		Event   string `json:"event"`
		Payload struct {
			ID     string `json:"id"`
			SentAt int64  `json:"sent_at"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(payload, &p); err != nil || p.Payload.ID == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bcasts[p.Payload.ID]++
	if c.bcasts[p.Payload.ID] == 1 && p.Payload.SentAt > 0 {
		c.bcastLat = append(c.bcastLat, rtLatency{at: now, d: now.Sub(time.Unix(0, p.Payload.SentAt))})
	}
}

// onPresence applies presence_state (the whole state) or presence_diff to
// the client's view: key → the phx_refs of its metas.
func (c *rtClient) onPresence(payload json.RawMessage, state bool) {
	type metas map[string]struct {
		Metas []struct {
			Ref string `json:"phx_ref"`
		} `json:"metas"`
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if state {
		var s metas
		_ = json.Unmarshal(payload, &s)
		c.view = map[string]map[string]bool{}
		for k, v := range s {
			for _, m := range v.Metas {
				c.addMeta(k, m.Ref)
			}
		}
		return
	}
	var d struct {
		Joins  metas `json:"joins"`
		Leaves metas `json:"leaves"`
	}
	_ = json.Unmarshal(payload, &d)
	for k, v := range d.Leaves {
		for _, m := range v.Metas {
			delete(c.view[k], m.Ref)
		}
		if len(c.view[k]) == 0 {
			delete(c.view, k)
		}
	}
	for k, v := range d.Joins {
		for _, m := range v.Metas {
			c.addMeta(k, m.Ref)
		}
		if k != c.uid {
			c.joinsSeen++
		}
	}
}

func (c *rtClient) addMeta(key, ref string) {
	if c.view[key] == nil {
		c.view[key] = map[string]bool{}
	}
	c.view[key][ref] = true
}

// lose ends a client the soak did not close: the network, the server or
// a protocol failure did.
func (c *rtClient) lose(why string) {
	c.end(why)
}

// close ends the client on the soak's own initiative.
func (c *rtClient) close() {
	c.end("")
	<-c.done
}

func (c *rtClient) end(why string) {
	if !c.ending.CompareAndSwap(false, true) {
		return
	}
	c.mu.Lock()
	c.closedAt, c.lostWhy = time.Now(), why
	c.mu.Unlock()
	close(c.dead)
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""),
		time.Now().Add(time.Second))
	_ = c.ws.Close()
}

// lost reports why the client ended when the soak did not end it.
func (c *rtClient) lost() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lostWhy
}
