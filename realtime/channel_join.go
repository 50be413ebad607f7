package realtime

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdev/basalt/realtime/changes"
)

// join handles phx_join in the order of the reference's checks: topic,
// limits, token, private read policies, replay; then subscribes, replies
// with the postgres_changes bindings and their ids, pushes presence_state
// and finally reports the postgres_changes subscription.
//
// Everything a client may count on once it has the ok reply is in place
// before the reply is queued: the channel is in the hub, and its
// postgres_changes bindings are registered and validated (with
// postgres_changes_options.wait, always, else the join fails; without it,
// unless validating them takes longer than changesReadyWait). So a
// broadcast another client sends, or a row committed, right after this
// client saw SUBSCRIBED reaches it.
func (s *Service) join(c *conn, m *message) {
	name, ok := strings.CutPrefix(m.Topic, "realtime:")
	if !ok {
		c.unmatched(m)
		return
	}
	// A second join of a topic replaces the first, as Phoenix does.
	if old := c.channel(m.Topic); old != nil {
		old.close()
	}
	ch, cfg, err := s.prepareJoin(c, m, name)
	if err != nil {
		s.replyJoinError(c, m, asJoinError(err))
		return
	}
	bindings := ch.bindings(cfg)
	var report func()
	if len(bindings) > 0 {
		ch.sub = changes.NewSubscriber(ch.caller(), bindingsOf(bindings), ch.deliverChange)
		if cfg.waitChanges {
			// postgres_changes_options.wait: live before the reply, or
			// the join fails.
			if err := s.awaitSubscription(ch.sub, cfg.waitTimeout); err != nil {
				ch.stop()
				s.replyJoinError(c, m, asJoinError(err))
				return
			}
			report = func() { ch.system("postgres_changes", "ok", "Subscribed to PostgreSQL") }
		} else {
			report = ch.subscribeChanges()
		}
	}
	c.mu.Lock()
	c.channels[m.Topic] = ch
	c.mu.Unlock()
	// The channel enters the hub and its reply and presence_state are
	// queued in one locked step: a broadcast or diff that finds the channel
	// in the hub is queued after them, and one that does not was sent
	// before the join.
	withState := ch.presenceEnabled.Load() && ch.readAllowed(extPresence)
	s.hub.join(ch, func(p *presenceState) {
		c.reply(m.JoinRef, m.Ref, m.Topic, "ok", joinResponse(bindings))
		if withState {
			c.client.Load().presence.Add(1)
			c.push(ch.joinRef, ch.topic, "presence_state", p.stateJSON())
		}
	})
	ch.flushEarlyChanges()
	if cfg.replicationReady {
		ch.system("system", "ok", "Replication connection established")
	}
	if cfg.replay != nil {
		go s.replay(ch, cfg.replay)
	}
	if report != nil {
		report()
	}
}

// changesReadyWait bounds how long a join's reply waits for its
// postgres_changes bindings to be validated. Past it (no node reads the
// slot yet, a slow database) the reply goes anyway and the subscription's
// system message follows when validation ends, as the reference always
// does.
const changesReadyWait = 3 * time.Second

// subscribeChanges registers the channel's postgres_changes subscriber and
// starts validating its bindings; it waits up to changesReadyWait for the
// outcome. It returns what to run after the join reply: the system
// message saying how the subscription went, sent at once or when the
// validation ends.
func (ch *channel) subscribeChanges() func() {
	s := ch.c.s
	if s.changes == nil {
		return func() { ch.system("postgres_changes", "error", msgDatabaseUnavailable) }
	}
	s.changes.Subscribe(ch.sub)
	res := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(s.ctx, 15*time.Second)
		defer cancel()
		res <- s.changes.Validate(ctx, ch.sub)
	}()
	t := time.NewTimer(changesReadyWait)
	defer t.Stop()
	select {
	case err := <-res:
		return func() { ch.reportSubscription(err) }
	case <-t.C:
		return func() { go func() { ch.reportSubscription(<-res) }() }
	}
}

// awaitSubscription makes a subscription live before the join is
// answered, for a join with postgres_changes_options.wait, as the
// reference does (blocking the socket meanwhile, as the reference's
// channel join blocks its socket process). If no node reads the slot
// before the timeout, the join fails with PostgresChangesSubscribeTimeout
// (a validation already under way is let finish); bindings the database
// refuses fail it with RealtimeDisabledForConfiguration.
func (s *Service) awaitSubscription(sub *changes.Subscriber, timeout time.Duration) error {
	timedOut := refuse("PostgresChangesSubscribeTimeout: Timed out after " + strconv.FormatInt(timeout.Milliseconds(), 10) +
		"ms waiting for the postgres_changes subscription")
	wctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	if s.changes == nil {
		// Nothing will read the slot: the reference retries until the end.
		<-wctx.Done()
		return timedOut
	}
	if !s.changes.Ready(wctx) {
		return timedOut
	}
	s.changes.Subscribe(sub)
	vctx, vcancel := context.WithTimeout(s.ctx, 15*time.Second)
	defer vcancel()
	if err := s.changes.Validate(vctx, sub); err != nil {
		s.changes.Unsubscribe(sub)
		return refuse("RealtimeDisabledForConfiguration: " + err.Error())
	}
	return nil
}

// prepareJoin runs every check that can refuse the join and builds the
// channel.
func (s *Service) prepareJoin(c *conn, m *message, name string) (*channel, joinConfig, error) {
	cfg := parseJoin(m.Payload)
	if name == "" {
		return nil, cfg, refuse("TopicNameRequired: You must provide a topic name")
	}
	token := c.token
	if cfg.accessToken != nil && !strings.HasPrefix(*cfg.accessToken, "sb_") {
		token = *cfg.accessToken
	}
	// The limits come before the token's verdict, as in the reference;
	// the token only says whose share the join uses.
	claims, tokenErr := s.verifyToken(token)
	if err := s.admitJoin(c, clientOf(claims, c.addr)); err != nil {
		return nil, cfg, err
	}
	if tokenErr != nil {
		return nil, cfg, tokenErr
	}
	ch := &channel{c: c, id: strconv.FormatInt(channelSeq.Add(1), 36), topic: m.Topic, name: name,
		key: tkey{private: cfg.private, topic: m.Topic}, joinRef: m.JoinRef, private: cfg.private,
		ackBroadcast: cfg.ack, selfBroadcast: cfg.self, presenceKey: cfg.presenceKey,
		token: token, claims: claims,
		presenceLimit: windowLimiter{max: s.cfg.ClientPresenceMax, window: s.cfg.ClientPresenceWindow}}
	if ch.joinRef == nil {
		ch.joinRef = m.Ref
	}
	ch.presenceEnabled.Store(cfg.presenceEnabled)
	if cfg.private {
		ch.presenceKey = bindPresenceKey(claims, cfg.presenceKey)
		if err := ch.authorizeRead(cfg.presenceEnabled); err != nil {
			return nil, cfg, err
		}
	}
	if cfg.replay != nil {
		if !cfg.private {
			return nil, cfg, refuse("UnableToReplayMessages: Replay is not allowed for public channels")
		}
		if !ch.readAllowed(extBroadcast) {
			return nil, cfg, errReadDenied(name)
		}
		if _, _, ok := parseReplay(cfg.replay); !ok {
			return nil, cfg, refuse("UnableToReplayMessages: Replay params are not valid")
		}
	}
	ch.armExpiry(claims)
	return ch, cfg, nil
}

// admitJoin applies the connected users, join-rate and channel limits to
// a join of client k, then counts the socket as a connected user of k.
func (s *Service) admitJoin(c *conn, k clientKey) error {
	c.mu.Lock()
	counted, n := c.counted, len(c.channels)
	c.mu.Unlock()
	cur := c.client.Load()
	// A socket counted for an anonymous client that joins signed in moves
	// to the signed-in client, whose share must have room.
	moving := counted && !cur.key.signedIn && k.signedIn
	if (!counted || moving) && !s.userRoom(k, counted) {
		return errTooManyUsers
	}
	if !s.joins.allow(s.ctx, k, s.now()) {
		c.condemned.Store(true)
		return &joinError{reason: "ClientJoinRateLimitReached: Too many joins per second", disconnect: true}
	}
	if n >= s.cfg.MaxChannelsPerClient {
		return refuse("ChannelRateLimitReached: Too many channels")
	}
	if s.countUser(c, k) {
		s.cluster.usersChanged()
	}
	return nil
}

// binding is one requested postgres_changes item with its server id.
type binding struct {
	id                           int64
	params                       map[string]any // the item as the client sent it
	event, schema, table, filter string
}

// bindings reads the postgres_changes items of the join, or, for the legacy
// topic form without config, realtime:<schema>[:<table>[:<filter>]].
func (ch *channel) bindings(cfg joinConfig) []binding {
	var items []map[string]any
	if cfg.hasConfig {
		for _, raw := range cfg.postgresChanges {
			var p map[string]any
			if json.Unmarshal(raw, &p) == nil {
				items = append(items, p)
			}
		}
	} else {
		// A join without config is the legacy topic form.
		parts := strings.SplitN(ch.name, ":", 3)
		p := map[string]any{"schema": parts[0]}
		if len(parts) > 1 {
			p["table"] = parts[1]
		}
		if len(parts) > 2 {
			p["filter"] = parts[2]
		}
		items = append(items, p)
	}
	out := make([]binding, 0, len(items))
	for _, p := range items {
		b := binding{id: bindingID(p), params: p}
		b.event, _ = p["event"].(string)
		b.schema, _ = p["schema"].(string)
		b.table, _ = p["table"].(string)
		b.filter, _ = p["filter"].(string)
		out = append(out, b)
	}
	return out
}

// bindingsOf converts to the changes package's form.
func bindingsOf(bs []binding) []changes.Binding {
	out := make([]changes.Binding, len(bs))
	for i, b := range bs {
		cb := changes.Binding{ID: b.id, Event: b.event, Schema: b.schema, Table: b.table, Filter: b.filter}
		_, cb.HasFilter = b.params["filter"].(string)
		switch sel := b.params["select"].(type) {
		case nil:
		case []any:
			for _, c := range sel {
				if s, ok := c.(string); ok {
					cb.Select = append(cb.Select, s)
				}
			}
		default:
			cb.SelectInvalid = true
		}
		cb.Raw, _ = json.Marshal(b.params)
		out[i] = cb
	}
	return out
}

// joinResponse echoes every requested item, in order, with its id.
func joinResponse(bs []binding) json.RawMessage {
	items := make([]map[string]any, len(bs))
	for i, b := range bs {
		item := make(map[string]any, len(b.params)+1)
		for k, v := range b.params {
			item[k] = v
		}
		item["id"] = b.id
		items[i] = item
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]any{"postgres_changes": items})
	return bytes.TrimSpace(buf.Bytes())
}

// reportSubscription tells the client how validating its postgres_changes
// bindings went, as the reference's async subscribe does.
func (ch *channel) reportSubscription(err error) {
	if ch.stopped.Load() {
		return
	}
	if err != nil {
		ch.system("postgres_changes", "error", err.Error())
		return
	}
	ch.system("postgres_changes", "ok", "Subscribed to PostgreSQL")
}

// deliverChange sends one postgres_changes event to this channel. A change
// that matched while the join was still validating waits for the reply: the
// client drops events of a channel it has not seen joined.
func (ch *channel) deliverChange(payload json.RawMessage) {
	ch.mu.Lock()
	if !ch.replied {
		ch.early = append(ch.early, payload)
		ch.mu.Unlock()
		return
	}
	ch.mu.Unlock()
	ch.deliver(newJSONMsg(ch.topic, "postgres_changes", payload))
}

// flushEarlyChanges sends, in order, the changes that matched before the
// join reply was queued, then lets later ones through directly.
func (ch *channel) flushEarlyChanges() {
	for {
		ch.mu.Lock()
		early := ch.early
		ch.early = nil
		if len(early) == 0 {
			ch.replied = true
			ch.mu.Unlock()
			return
		}
		ch.mu.Unlock()
		for _, p := range early {
			ch.deliver(newJSONMsg(ch.topic, "postgres_changes", p))
		}
	}
}
