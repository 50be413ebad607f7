package realtime

import (
	"bytes"
	"encoding/json"
	"strings"
)

// handleBroadcast fans a client broadcast out to the topic. With ack the
// sender gets phx_reply ok (or the size error); private channels need the
// broadcast write policy, and without it the message is dropped with no
// reply at all, as the reference does.
func (ch *channel) handleBroadcast(m *message) {
	s := ch.c.s
	if !ch.writeAllowed(extBroadcast) {
		return
	}
	var out *outMsg
	if m.Broadcast != nil {
		out = newUserBroadcastMsg(ch.topic, m.Broadcast)
	} else {
		out = newJSONMsg(ch.topic, "broadcast", m.Payload)
		if !isObject(m.Payload) {
			return
		}
	}
	if out.size > s.cfg.MaxPayloadBytes {
		if ch.ackBroadcast {
			ch.c.reply(m.JoinRef, m.Ref, m.Topic, "error", json.RawMessage(`"payload_size_exceeded"`))
		}
		return
	}
	s.publish(ch.key, out, ch)
	if ch.ackBroadcast {
		ch.c.reply(m.JoinRef, m.Ref, m.Topic, "ok", nil)
	}
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// handlePresence tracks or untracks the channel's presence.
func (ch *channel) handlePresence(m *message) {
	s := ch.c.s
	var p struct {
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(m.Payload, &p) != nil || p.Event == "" {
		ch.c.reply(m.JoinRef, m.Ref, m.Topic, "ok", nil)
		return
	}
	ch.mu.Lock()
	ok := ch.presenceLimit.allow(s.now())
	ch.mu.Unlock()
	if !ok {
		ch.shutdown("Client presence rate limit exceeded")
		return
	}
	switch strings.ToLower(p.Event) {
	case "track":
		ch.track(m, p.Payload)
	case "untrack":
		ch.mu.Lock()
		tracked := ch.presencePayload != nil
		ch.presencePayload = nil
		ch.mu.Unlock()
		ch.c.reply(m.JoinRef, m.Ref, m.Topic, "ok", nil)
		if tracked {
			s.untrack(ch)
		}
	default:
		ch.c.reply(m.JoinRef, m.Ref, m.Topic, "error", nil)
	}
}

// track records the channel's presence payload and tells the topic.
func (ch *channel) track(m *message, payload json.RawMessage) {
	s := ch.c.s
	if len(payload) == 0 || bytes.Equal(payload, jsonNull) {
		payload = json.RawMessage("{}")
	}
	if !isObject(payload) {
		ch.c.reply(m.JoinRef, m.Ref, m.Topic, "error", json.RawMessage(`{"reason":"Presence track payload must be a map"}`))
		return
	}
	if ch.private {
		if ch.presenceKey == "" {
			// Anonymous: nobody to be present as (bindPresenceKey).
			ch.c.reply(m.JoinRef, m.Ref, m.Topic, "error", nil)
			return
		}
		if !ch.snapshotPolicy().has(extPresence) {
			// Presence enabled by this track: decide presence reads now.
			_ = ch.authorizeRead(true)
		}
		if !ch.writeAllowed(extPresence) {
			ch.c.reply(m.JoinRef, m.Ref, m.Topic, "error", nil)
			return
		}
	}
	if len(payload) > s.cfg.MaxPayloadBytes {
		ch.shutdown("Track message size exceeded")
		return
	}
	client := ch.c.client.Load()
	if s.clients.overPresence(client) {
		ch.shutdown("Too many presence messages per second")
		return
	}
	ch.mu.Lock()
	same := ch.presencePayload != nil && bytes.Equal(ch.presencePayload, payload)
	ch.presencePayload = payload
	ch.mu.Unlock()
	ch.presenceEnabled.Store(true)
	// The reply goes first: the diff reaches every subscriber, the tracker
	// included, after the track is acknowledged.
	ch.c.reply(m.JoinRef, m.Ref, m.Topic, "ok", nil)
	if !same {
		client.presence.Add(1)
		s.trackLocal(ch, payload)
	}
}

// trackLocal adds or updates ch's meta and announces the diff.
func (s *Service) trackLocal(ch *channel, payload json.RawMessage) {
	meta := &presenceMeta{owner: ch, ownerID: ch.id, ref: newRef(), payload: payload}
	var diff *presenceDiff
	s.hub.withPresence(ch.key, func(p *presenceState) {
		diff = p.track(ch.presenceKey, meta, func(m *presenceMeta) bool { return m.owner == ch })
	})
	s.announce(ch.key, diff)
	s.cluster.presenceTrack(ch, meta)
}

// untrack removes every meta of ch and announces the diff.
func (s *Service) untrack(ch *channel) {
	var diff *presenceDiff
	s.hub.withPresence(ch.key, func(p *presenceState) {
		diff = p.untrack(func(m *presenceMeta) bool { return m.owner == ch })
	})
	s.announce(ch.key, diff)
	s.cluster.presenceUntrack(ch)
}

// announce sends a presence_diff to the topic's local subscribers.
func (s *Service) announce(k tkey, diff *presenceDiff) {
	if diff == nil || diff.empty() {
		return
	}
	s.hub.presenceDiff(k, newJSONMsg(k.topic, "presence_diff", diff.diffJSON()))
}

// publish fans a broadcast out on this node and, in a cluster, to the
// others.
func (s *Service) publish(k tkey, m *outMsg, from *channel) {
	s.hub.broadcast(k, m, from)
	s.cluster.broadcast(k, m)
}
