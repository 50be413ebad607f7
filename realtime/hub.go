package realtime

import (
	"bytes"
	"encoding/json"
	"sync"
)

// tkey names a fan-out group: a public and a private channel of the same
// name are different groups.
type tkey struct {
	private bool
	topic   string // "realtime:<name>"
}

// hub holds this node's subscribers and presence by topic.
type hub struct {
	mu     sync.RWMutex
	topics map[tkey]*topicState
}

type topicState struct {
	subs     map[*channel]struct{}
	presence *presenceState
	// list is subs as a slice, made by the first fan-out after a change
	// and shared, read-only, by every fan-out until the next one.
	list []*channel
}

func newHub() *hub { return &hub{topics: map[tkey]*topicState{}} }

// subscribe adds ch to its topic.
func (h *hub) subscribe(ch *channel) { h.join(ch, nil) }

// join adds ch to its topic and, in the same locked step, runs fn on the
// topic's presence (fn may be nil).
func (h *hub) join(ch *channel, fn func(p *presenceState)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ts := h.topics[ch.key]
	if ts == nil {
		ts = &topicState{subs: map[*channel]struct{}{}, presence: newPresenceState()}
		h.topics[ch.key] = ts
	}
	ts.subs[ch] = struct{}{}
	ts.list = nil
	if fn != nil {
		fn(ts.presence)
	}
}

// unsubscribe removes ch and drops the topic when nothing is left in it.
func (h *hub) unsubscribe(ch *channel) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ts := h.topics[ch.key]
	if ts == nil {
		return
	}
	delete(ts.subs, ch)
	ts.list = nil
	if len(ts.subs) == 0 && ts.presence.empty() {
		delete(h.topics, ch.key)
	}
}

// subscribers returns a topic's local subscribers. The slice is shared by
// every caller until the topic's subscribers change: read it, never write.
func (h *hub) subscribers(k tkey) []*channel {
	h.mu.RLock()
	ts := h.topics[k]
	if ts == nil {
		h.mu.RUnlock()
		return nil
	}
	list := ts.list
	h.mu.RUnlock()
	if list != nil {
		return list
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if ts = h.topics[k]; ts == nil {
		return nil
	}
	if ts.list == nil {
		ts.list = make([]*channel, 0, len(ts.subs))
		for ch := range ts.subs {
			ts.list = append(ts.list, ch)
		}
	}
	return ts.list
}

// broadcast delivers a user broadcast to the topic's subscribers; from (the
// sender, or nil) is skipped unless it asked for its own messages.
func (h *hub) broadcast(k tkey, m *outMsg, from *channel) {
	for _, ch := range h.subscribers(k) {
		if ch == from && !ch.selfBroadcast {
			continue
		}
		ch.deliverBroadcast(m)
	}
}

// presenceDiff delivers a diff to every subscriber allowed to read presence,
// the tracker included.
func (h *hub) presenceDiff(k tkey, m *outMsg) {
	for _, ch := range h.subscribers(k) {
		ch.deliverPresence(m)
	}
}

// withPresence runs fn on a topic's presence state under the hub lock,
// creating the topic when needed.
func (h *hub) withPresence(k tkey, fn func(p *presenceState)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ts := h.topics[k]
	if ts == nil {
		ts = &topicState{subs: map[*channel]struct{}{}, presence: newPresenceState()}
		h.topics[k] = ts
	}
	fn(ts.presence)
	if len(ts.subs) == 0 && ts.presence.empty() {
		delete(h.topics, k)
	}
}

// outMsg is one message fanned out to many sockets. It is encoded at most
// once per protocol version, however many subscribers receive it.
type outMsg struct {
	topic   string
	event   string          // broadcast, presence_diff, postgres_changes
	payload json.RawMessage // the JSON payload (nil for a binary-only user broadcast)
	ub      *userBroadcast  // set for broadcasts that go out as kind 4 on vsn 2
	size    int             // payload bytes, for limits

	once [2]sync.Once
	f    [2]frame
	ok   [2]bool
}

// newJSONMsg is a message sent as JSON text to both versions.
func newJSONMsg(topic, event string, payload json.RawMessage) *outMsg {
	return &outMsg{topic: topic, event: event, payload: payload, size: len(payload)}
}

// newUserBroadcastMsg is a broadcast that entered as a kind-3 frame or
// through the single-event endpoint: vsn 2 sockets get a kind-4 frame, vsn 1
// sockets the JSON form (binary payloads cannot reach them).
func newUserBroadcastMsg(topic string, ub *userBroadcast) *outMsg {
	m := &outMsg{topic: topic, event: "broadcast", ub: ub, size: len(ub.Payload)}
	if ub.Encoding == encodingJSON {
		m.payload = broadcastPayload(ub.Event, ub.Payload, nil)
	}
	return m
}

// broadcastPayload builds {"type":"broadcast","event":E,"payload":P[,"meta":M]}.
func broadcastPayload(event string, payload, meta json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"broadcast","event":`)
	writeString(&b, event)
	b.WriteString(`,"payload":`)
	if len(payload) == 0 {
		b.WriteString("{}")
	} else {
		b.Write(payload)
	}
	if len(meta) > 0 {
		b.WriteString(`,"meta":`)
		b.Write(meta)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// frameFor returns the encoded frame for a protocol version; ok is false
// when the message cannot be represented in it.
func (m *outMsg) frameFor(vsn string) (frame, bool) {
	i := 0
	if vsn == vsn2 {
		i = 1
	}
	m.once[i].Do(func() {
		if m.ub != nil && i == 1 {
			if f, ok := encodeUserBroadcast(m.topic, m.ub, nil); ok {
				m.f[i], m.ok[i] = f, true
				return
			}
		}
		if m.payload == nil {
			return
		}
		m.f[i], m.ok[i] = encodeText(vsn, nil, nil, m.topic, m.event, m.payload), true
	})
	return m.f[i], m.ok[i]
}
