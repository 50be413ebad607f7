package realtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Notification channels. realtime.send() notifies the first; nodes tell
// each other about broadcasts and presence on the second, and about
// changes on the third. (realtime.reauthorize_user notifies
// notifyReauthorize.)
const (
	notifyMessages = "realtime_messages"
	notifyCluster  = "realtime_cluster"
	notifyChanges  = "realtime_changes"
)

// notifyLimit is what goes in one NOTIFY payload (PostgreSQL's 8000
// bytes, with room to spare); larger bodies are stored (see notify).
const notifyLimit = 7900

// cluster listens for realtime.send() messages and, with Config.Cluster,
// carries broadcasts and presence between nodes through LISTEN/NOTIFY.
type cluster struct {
	s    *Service
	node string
	wg   sync.WaitGroup

	mu        sync.Mutex
	lastSeen  map[string]time.Time        // other nodes' last word
	users     map[string]int64            // other nodes' connected users, as last reported
	anon      map[string]int64            // of them, anonymous clients'
	clients   map[string]map[string]int64 // and by client
	fences    map[string]chan struct{}    // see fence
	stored    atomic.Int64                // bodies stored for being too large
	listening atomic.Bool
	// usersDirty says this node's user count changed since it last told
	// the others.
	usersDirty chan struct{}
}

func newCluster(s *Service) *cluster {
	return &cluster{s: s, node: uuid.NewString(), lastSeen: map[string]time.Time{},
		users: map[string]int64{}, anon: map[string]int64{}, clients: map[string]map[string]int64{}, fences: map[string]chan struct{}{}, usersDirty: make(chan struct{}, 1)}
}

// envelope is one message between nodes.
type envelope struct {
	Node    string          `json:"n"`
	Kind    string          `json:"k"` // b broadcast, pt track, pu untrack, hi hello, st state
	Private bool            `json:"p,omitempty"`
	Topic   string          `json:"t,omitempty"`
	Event   string          `json:"e,omitempty"`
	Payload json.RawMessage `json:"d,omitempty"`
	Binary  []byte          `json:"x,omitempty"` // binary user broadcast payload
	UEvent  string          `json:"u,omitempty"`
	Enc     *byte           `json:"c,omitempty"`
	Chan    string          `json:"i,omitempty"`
	Key     string          `json:"y,omitempty"`
	Ref     string          `json:"r,omitempty"`
	Metas   []remoteMeta    `json:"m,omitempty"`
	// Users is the sender's count of connected users, carried by every
	// envelope so the concurrent users limit holds across nodes; Anon is
	// the anonymous clients' part of it.
	Users int64 `json:"w,omitempty"`
	Anon  int64 `json:"v,omitempty"`
	// Clients is the sender's connected users by client, in the
	// envelopes that report them (reportsClients).
	Clients map[string]int64 `json:"cl,omitempty"`
}

// reportsClients reports whether an envelope kind carries the sender's
// connected users by client: the heartbeat, the greeting and its state
// reply, and the report of a change.
func reportsClients(kind string) bool {
	return kind == "hb" || kind == "hi" || kind == "st" || kind == "uc"
}

// remoteMeta is one presence meta in a state reply.
type remoteMeta struct {
	Private bool            `json:"p,omitempty"`
	Topic   string          `json:"t"`
	Chan    string          `json:"i"`
	Key     string          `json:"y"`
	Ref     string          `json:"r"`
	Payload json.RawMessage `json:"d"`
}

// run keeps a listening connection open until ctx ends, reconnecting after
// failures.
func (cl *cluster) run(ctx context.Context) {
	cl.wg.Add(1)
	defer cl.wg.Done()
	if cl.s.cfg.Cluster {
		cl.wg.Add(1)
		go cl.reportUsers(ctx)
	}
	for ctx.Err() == nil {
		if err := cl.listen(ctx); err != nil && ctx.Err() == nil {
			cl.s.log.Warn("realtime: listener", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

func (cl *cluster) wait() { cl.wg.Wait() }

// listen runs one listening session.
func (cl *cluster) listen(ctx context.Context) error {
	conn, err := cl.s.admin.Acquire(ctx)
	if err != nil {
		return err
	}
	// The connection leaves the pool: LISTEN state must not leak into it.
	pc := conn.Hijack()
	defer pc.Close(context.Background())
	listen := "LISTEN " + notifyMessages + "; LISTEN " + notifyReauthorize
	if cl.s.cfg.Cluster {
		listen += "; LISTEN " + notifyCluster + "; LISTEN " + notifyChanges
	}
	if _, err := pc.Exec(ctx, listen); err != nil {
		return err
	}
	cl.listening.Store(true)
	defer cl.listening.Store(false)
	// Ask the others for their presence and tell them ours: after a lost
	// connection they may have expired it.
	cl.send(ctx, envelope{Kind: "hi"})
	cl.sendState(ctx)
	beat := time.NewTicker(5 * time.Second)
	defer beat.Stop()
	for {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		n, err := pc.WaitForNotification(wctx)
		cancel()
		select {
		case <-beat.C:
			cl.send(ctx, envelope{Kind: "hb"})
			cl.expireNodes()
		default:
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if wctx.Err() != nil {
				continue // idle: beat and wait again
			}
			return err
		}
		switch n.Channel {
		case notifyMessages:
			cl.dbMessage(ctx, n.Payload)
		case notifyCluster:
			if body, ok := cl.resolve(ctx, n.Payload); ok {
				cl.receive(ctx, body)
			}
		case notifyChanges:
			cl.changeMessage(ctx, n.Payload)
		case notifyReauthorize:
			cl.s.reauthorizeUser(n.Payload)
		}
	}
}

// send notifies the other nodes.
func (cl *cluster) send(ctx context.Context, e envelope) {
	if !cl.s.cfg.Cluster {
		return
	}
	switch e.Kind {
	case "hi", "hb", "st":
	default:
		if !cl.hasPeers() {
			return // a node on its own: nobody to tell
		}
	}
	e.Node = cl.node
	e.Users, e.Anon = cl.s.clients.users.Load(), cl.s.clients.anon.Load()
	if reportsClients(e.Kind) {
		e.Clients = cl.s.clients.report()
	}
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	if err := cl.notify(ctx, notifyCluster, "", b); err != nil {
		cl.s.log.Warn("realtime: notify", "err", err)
	}
}

// publishChange hands a change the leader read to the other nodes; the
// notification starts with this node's id. It returns once the
// notification is committed (PostgreSQL then delivers it to every
// listening node).
func (cl *cluster) publishChange(ctx context.Context, change []byte) error {
	if !cl.hasPeers() {
		return nil
	}
	return cl.notify(ctx, notifyChanges, cl.node+" ", change)
}

// changeMessage handles a notification on the changes channel: another
// node's change, or this node's fence.
func (cl *cluster) changeMessage(ctx context.Context, payload string) {
	from, body := "", payload
	if payload != "" && payload[0] != '{' && payload[0] != '@' {
		from, body, _ = strings.Cut(payload, " ")
	}
	if token, ok := strings.CutPrefix(body, "!"); ok {
		if from == cl.node {
			cl.passFence(token)
		}
		return
	}
	eng := cl.s.changes
	if eng == nil || from == cl.node {
		return // this node applied its own changes as it read them
	}
	if b, ok := cl.resolve(ctx, body); ok {
		eng.Ingest(ctx, b)
	}
}

// fence returns once this node's listener has handled every change
// notification committed before the call: notifications arrive in commit
// order, so it sends one to itself and waits for it. Without a listener
// there is nothing to wait for.
func (cl *cluster) fence(ctx context.Context) error {
	if !cl.listening.Load() {
		return nil
	}
	token := uuid.NewString()
	passed := make(chan struct{})
	cl.mu.Lock()
	cl.fences[token] = passed
	cl.mu.Unlock()
	defer func() {
		cl.mu.Lock()
		delete(cl.fences, token)
		cl.mu.Unlock()
	}()
	if err := cl.notify(ctx, notifyChanges, cl.node+" ", []byte("!"+token)); err != nil {
		return err
	}
	select {
	case <-passed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (cl *cluster) passFence(token string) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if ch := cl.fences[token]; ch != nil {
		close(ch)
		delete(cl.fences, token)
	}
}

// notify sends prefix+body on a channel. A body too large for a NOTIFY
// payload is stored in realtime.cluster_messages and the notification
// carries prefix+"@<id>" instead; stored bodies older than a minute are
// removed now and then.
func (cl *cluster) notify(ctx context.Context, channel, prefix string, body []byte) error {
	payload := prefix + string(body)
	if len(payload) > notifyLimit {
		var id int64
		if err := cl.s.admin.QueryRow(ctx, `INSERT INTO realtime.cluster_messages (body) VALUES ($1) RETURNING id`,
			string(body)).Scan(&id); err != nil {
			return fmt.Errorf("store cross-node message of %d bytes: %w", len(body), err)
		}
		payload = prefix + "@" + strconv.FormatInt(id, 10)
		if cl.stored.Add(1)%100 == 1 {
			_, _ = cl.s.admin.Exec(ctx, `DELETE FROM realtime.cluster_messages WHERE inserted_at < now() - interval '1 minute'`)
		}
	}
	_, err := cl.s.admin.Exec(ctx, "SELECT pg_notify($1, $2)", channel, payload)
	return err
}

// resolve returns a notification's body, reading a stored one.
func (cl *cluster) resolve(ctx context.Context, payload string) ([]byte, bool) {
	ref, stored := strings.CutPrefix(payload, "@")
	if !stored {
		return []byte(payload), true
	}
	var body string
	if err := cl.s.admin.QueryRow(ctx, `SELECT body FROM realtime.cluster_messages WHERE id = $1::bigint`, ref).Scan(&body); err != nil {
		cl.s.log.Warn("realtime: read cross-node message", "id", ref, "err", err)
		return nil, false
	}
	return []byte(body), true
}

// broadcast sends a local broadcast to the other nodes.
func (cl *cluster) broadcast(k tkey, m *outMsg) {
	e := envelope{Kind: "b", Private: k.private, Topic: k.topic, Event: m.event, Payload: m.payload}
	if m.ub != nil {
		e.Payload, e.UEvent, e.Enc = nil, m.ub.Event, &m.ub.Encoding
		e.Binary = m.ub.Payload
	}
	cl.send(cl.s.ctx, e)
}

func (cl *cluster) presenceTrack(ch *channel, m *presenceMeta) {
	cl.send(cl.s.ctx, envelope{Kind: "pt", Private: ch.key.private, Topic: ch.topic, Chan: ch.id,
		Key: ch.presenceKey, Ref: m.ref, Payload: m.payload})
}

func (cl *cluster) presenceUntrack(ch *channel) {
	cl.send(cl.s.ctx, envelope{Kind: "pu", Private: ch.key.private, Topic: ch.topic, Chan: ch.id})
}

// receive applies another node's message.
func (cl *cluster) receive(ctx context.Context, payload []byte) {
	var e envelope
	if json.Unmarshal(payload, &e) != nil || e.Node == cl.node {
		return
	}
	cl.mu.Lock()
	cl.lastSeen[e.Node] = time.Now()
	cl.users[e.Node], cl.anon[e.Node] = e.Users, e.Anon
	if reportsClients(e.Kind) {
		cl.clients[e.Node] = e.Clients
	}
	cl.mu.Unlock()
	k := tkey{private: e.Private, topic: e.Topic}
	switch e.Kind {
	case "b":
		m := newJSONMsg(e.Topic, e.Event, e.Payload)
		if e.Enc != nil {
			m = newUserBroadcastMsg(e.Topic, &userBroadcast{Event: e.UEvent, Encoding: *e.Enc, Payload: e.Binary})
		}
		cl.s.hub.broadcast(k, m, nil)
	case "pt":
		cl.trackRemote(e.Node, remoteMeta{Private: e.Private, Topic: e.Topic, Chan: e.Chan, Key: e.Key,
			Ref: e.Ref, Payload: e.Payload})
	case "pu":
		cl.untrackRemote(k, func(m *presenceMeta) bool { return m.node == e.Node && m.ownerID == e.Chan })
	case "hi":
		cl.sendState(ctx)
	case "st":
		for _, m := range e.Metas {
			cl.trackRemote(e.Node, m)
		}
	}
}

// trackRemote records another node's presence meta.
func (cl *cluster) trackRemote(node string, rm remoteMeta) {
	k := tkey{private: rm.Private, topic: rm.Topic}
	meta := &presenceMeta{node: node, ownerID: rm.Chan, ref: rm.Ref, payload: rm.Payload}
	var diff *presenceDiff
	cl.s.hub.withPresence(k, func(p *presenceState) {
		if _, old := p.find(rm.Key, func(m *presenceMeta) bool { return m.ref == rm.Ref }); old != nil {
			return // already known (a state reply repeating a track)
		}
		diff = p.track(rm.Key, meta, func(m *presenceMeta) bool { return m.node == node && m.ownerID == rm.Chan })
	})
	cl.s.announce(k, diff)
}

func (cl *cluster) untrackRemote(k tkey, match func(*presenceMeta) bool) {
	var diff *presenceDiff
	cl.s.hub.withPresence(k, func(p *presenceState) { diff = p.untrack(match) })
	cl.s.announce(k, diff)
}

// sendState tells a new node every presence this node tracks, in
// envelopes that fit a NOTIFY.
func (cl *cluster) sendState(ctx context.Context) {
	var metas []remoteMeta
	cl.s.hub.mu.RLock()
	for k, ts := range cl.s.hub.topics {
		for key, ms := range ts.presence.metas {
			for _, m := range ms {
				if m.owner != nil {
					metas = append(metas, remoteMeta{Private: k.private, Topic: k.topic, Chan: m.ownerID,
						Key: key, Ref: m.ref, Payload: m.payload})
				}
			}
		}
	}
	cl.s.hub.mu.RUnlock()
	var batch []remoteMeta
	size := 0
	for _, m := range metas {
		n := len(m.Payload) + len(m.Topic) + len(m.Key) + 80
		if size+n > notifyLimit-200 && len(batch) > 0 {
			cl.send(ctx, envelope{Kind: "st", Metas: batch})
			batch, size = nil, 0
		}
		batch = append(batch, m)
		size += n
	}
	if len(batch) > 0 || len(metas) == 0 {
		// Even with nothing to report: the asking node learns we exist.
		cl.send(ctx, envelope{Kind: "st", Metas: batch})
	}
}

// usersReportDelay gathers the user count changes of a burst of joins and
// disconnects into one message to the other nodes.
const usersReportDelay = 100 * time.Millisecond

// usersChanged notes that this node's user count moved; the others hear
// of it within usersReportDelay.
func (cl *cluster) usersChanged() {
	select {
	case cl.usersDirty <- struct{}{}:
	default:
	}
}

// reportUsers tells the other nodes this node's user count whenever it
// changed (every envelope carries it; this one says only that).
func (cl *cluster) reportUsers(ctx context.Context) {
	defer cl.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-cl.usersDirty:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(usersReportDelay):
		}
		cl.send(ctx, envelope{Kind: "uc"})
	}
}

// peerUsers is the other nodes' connected users, as they last reported.
func (cl *cluster) peerUsers() int64 {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return sum(cl.users)
}

// peerUsersByNode is peerUsers by node, a copy.
func (cl *cluster) peerUsersByNode() map[string]int64 {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	out := make(map[string]int64, len(cl.users)+1)
	for n, v := range cl.users {
		out[n] = v
	}
	return out
}

// peerAnonUsers is the anonymous clients' part of peerUsers.
func (cl *cluster) peerAnonUsers() int64 {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return sum(cl.anon)
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// peerClientUsers is one client's connected users on the other nodes, as
// they last reported.
func (cl *cluster) peerClientUsers(client string) int64 {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	var n int64
	for _, m := range cl.clients {
		n += m[client]
	}
	return n
}

// peers is how many other nodes were heard from recently.
func (cl *cluster) peers() int {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return len(cl.lastSeen)
}

// hasPeers reports whether another node was heard from recently: only then
// are broadcasts, presence and changes sent to the others.
func (cl *cluster) hasPeers() bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return len(cl.lastSeen) > 0
}

// expireNodes drops the presence of nodes silent for three beats.
func (cl *cluster) expireNodes() {
	cl.mu.Lock()
	var gone []string
	for n, t := range cl.lastSeen {
		if time.Since(t) > 16*time.Second {
			gone = append(gone, n)
			delete(cl.lastSeen, n)
			delete(cl.users, n)
			delete(cl.anon, n)
			delete(cl.clients, n)
		}
	}
	cl.mu.Unlock()
	for _, n := range gone {
		cl.s.hub.mu.RLock()
		keys := make([]tkey, 0, len(cl.s.hub.topics))
		for k := range cl.s.hub.topics {
			keys = append(keys, k)
		}
		cl.s.hub.mu.RUnlock()
		for _, k := range keys {
			cl.untrackRemote(k, func(m *presenceMeta) bool { return m.node == n })
		}
	}
}

// dbMessage delivers a message realtime.send() stored: the notification
// carries the row id; the row is read back (it may be larger than a
// notification) and sent as {type, event, payload + id, meta: {id}}.
func (cl *cluster) dbMessage(ctx context.Context, id string) {
	var topic, event string
	var private bool
	var payload json.RawMessage
	err := cl.s.admin.QueryRow(ctx, `SELECT topic, coalesce(event, ''), coalesce(private, false),
		coalesce(payload, '{}'::jsonb) FROM realtime.messages WHERE id = $1::uuid`, id).Scan(&topic, &event, &private, &payload)
	if err != nil {
		if err != pgx.ErrNoRows {
			cl.s.log.Warn("realtime: read message", "id", id, "err", err)
		}
		return
	}
	payload = compact(payload)
	meta, _ := json.Marshal(map[string]string{"id": id})
	full := "realtime:" + topic
	m := newJSONMsg(full, "broadcast", broadcastPayload(event, payload, meta))
	cl.s.hub.broadcast(tkey{private: private, topic: full}, m, nil)
}

// compact drops the spaces of PostgreSQL's jsonb text.
func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
