package realtime

import (
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/realtime/changes"
)

// channel is one joined topic on one socket.
type channel struct {
	c       *conn
	id      string // unique on this node, for cluster presence
	topic   string // "realtime:<name>"
	name    string
	key     tkey
	joinRef json.RawMessage
	private bool

	ackBroadcast, selfBroadcast bool
	// presenceKey is the key this channel's presence is tracked under;
	// empty on a private channel whose caller may not track (see
	// bindPresenceKey). Read and written on the socket's read loop only.
	presenceKey     string
	presenceEnabled atomic.Bool

	mu              sync.Mutex
	token           string
	claims          *jwt.Claims
	policy          policies
	presencePayload json.RawMessage // what this channel tracks now
	presenceLimit   windowLimiter
	expiry          *time.Timer
	sub             *changes.Subscriber
	replied         bool              // the join reply is queued
	early           []json.RawMessage // changes that matched before it was
	stopped         atomic.Bool
}

var channelSeq atomic.Int64

// caller is who this channel acts as in PostgreSQL: its token's role and
// claims, the upgrade request's headers, and realtime.topic for policies
// on realtime.messages.
func (ch *channel) caller() pg.Caller {
	ch.mu.Lock()
	claims := ch.claims
	ch.mu.Unlock()
	return pg.Caller{Role: claims.Role, Claims: claims.Raw, Headers: ch.c.headers,
		After: []pg.Setting{{Name: "realtime.topic", Value: ch.name}}}
}

// deliverBroadcast sends a broadcast unless this channel may not read them.
func (ch *channel) deliverBroadcast(m *outMsg) {
	if ch.private && !ch.readAllowed(extBroadcast) {
		return
	}
	ch.deliver(m)
}

// deliverPresence sends a presence_diff unless this channel may not read
// presence.
func (ch *channel) deliverPresence(m *outMsg) {
	if ch.private && !ch.readAllowed(extPresence) {
		return
	}
	ch.deliver(m)
}

// deliver counts the message toward the events limit and sends it; a
// channel that receives while the limit is tripped is shut down, as the
// reference does.
func (ch *channel) deliver(m *outMsg) {
	if ch.stopped.Load() {
		return
	}
	client := ch.c.client.Load()
	client.events.Add(1)
	f, ok := m.frameFor(ch.c.vsn)
	if ok {
		ch.c.send(f)
	}
	if ch.c.s.clients.overEvents(client) {
		ch.shutdown(msgTooManyMessages)
	}
}

// msgTooManyMessages closes a channel over an events limit.
const msgTooManyMessages = "Too many messages per second"

// system pushes a system message on this channel.
func (ch *channel) system(extension, status, msg string) {
	body, _ := json.Marshal(map[string]string{"extension": extension, "status": status,
		"message": msg, "channel": ch.name})
	ch.c.push(ch.joinRef, ch.topic, "system", body)
}

// shutdown closes the channel on the server's initiative: a system error,
// then phx_close.
func (ch *channel) shutdown(msg string) {
	if ch.stopped.Load() {
		return
	}
	ch.c.s.log.Info("realtime: channel closed by the server", "topic", ch.topic, "reason", msg)
	ch.system("system", "error", msg)
	ch.close()
}

// close ends the channel: phx_close with ref = join_ref, then cleanup.
func (ch *channel) close() {
	if !ch.stop() {
		return
	}
	ch.c.mu.Lock()
	if ch.c.channels[ch.topic] == ch {
		delete(ch.c.channels, ch.topic)
	}
	ch.c.mu.Unlock()
	ch.c.send(encodeText(ch.c.vsn, ch.joinRef, ch.joinRef, ch.topic, "phx_close", json.RawMessage("{}")))
}

// stop leaves the hub, untracks presence and drops the postgres_changes
// subscription; it reports whether this call did it.
func (ch *channel) stop() bool {
	if !ch.stopped.CompareAndSwap(false, true) {
		return false
	}
	s := ch.c.s
	ch.mu.Lock()
	if ch.expiry != nil {
		ch.expiry.Stop()
	}
	sub := ch.sub
	tracked := ch.presencePayload != nil
	ch.mu.Unlock()
	s.hub.unsubscribe(ch)
	if tracked {
		s.untrack(ch)
	}
	if sub != nil && s.changes != nil {
		s.changes.Unsubscribe(sub)
	}
	return true
}

// armExpiry re-checks the token at min(5 min, time to exp), as the
// reference's confirm_token timer does.
func (ch *channel) armExpiry(claims *jwt.Claims) {
	d := claims.Expires.Sub(ch.c.s.now())
	if d > 5*time.Minute {
		d = 5 * time.Minute
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.expiry != nil {
		ch.expiry.Stop()
	}
	ch.expiry = time.AfterFunc(d, ch.confirmToken)
}

// confirmToken runs when the expiry timer fires.
func (ch *channel) confirmToken() {
	if ch.stopped.Load() {
		return
	}
	ch.mu.Lock()
	token := ch.token
	ch.mu.Unlock()
	claims, err := ch.c.s.verifyToken(token)
	if err != nil {
		ch.shutdown(tokenMessage(err))
		return
	}
	ch.armExpiry(claims)
}

// bindPresenceKey is the presence key of a private channel joined with
// claims: the caller's sub, whatever key the join asked for, so nobody can
// appear as someone else; empty (no tracking) for a caller without a sub
// or an anonymous one. The service role, which policies do not bind
// either, keeps the key it asked for.
func bindPresenceKey(claims *jwt.Claims, asked string) string {
	switch {
	case claims.Role == "service_role":
		return asked
	case claims.Role == "anon" || claims.Subject == "":
		return ""
	}
	return claims.Subject
}

// tokenMessage is the text after the code, as system messages carry it.
func tokenMessage(err error) string {
	if te, ok := err.(*tokenError); ok {
		return te.msg
	}
	return err.Error()
}

// handleAccessToken replaces the channel's token: re-verified, private
// policies re-run, new claims for postgres_changes, expiry re-armed.
func (ch *channel) handleAccessToken(m *message) {
	var p struct {
		AccessToken *string `json:"access_token"`
	}
	_ = json.Unmarshal(m.Payload, &p)
	if p.AccessToken == nil || strings.HasPrefix(*p.AccessToken, "sb_") {
		return
	}
	token := *p.AccessToken
	ch.mu.Lock()
	same := token == ch.token
	ch.mu.Unlock()
	if same {
		return
	}
	claims, err := ch.c.s.verifyToken(token)
	if err != nil {
		ch.shutdown(tokenMessage(err))
		return
	}
	ch.mu.Lock()
	prev := ch.policy
	prevClaims := ch.claims
	ch.token, ch.claims = token, claims
	ch.policy = policies{}
	ch.mu.Unlock()
	if ch.private && claims.Subject != prevClaims.Subject {
		// Another user now: what the previous one tracked goes, and the
		// channel's presence is theirs from here on.
		ch.mu.Lock()
		tracked := ch.presencePayload != nil
		ch.presencePayload = nil
		ch.mu.Unlock()
		if tracked {
			ch.c.s.untrack(ch)
		}
		ch.presenceKey = bindPresenceKey(claims, ch.presenceKey)
	}
	if ch.private && !ch.recheckRead(prev) {
		return
	}
	if ch.sub != nil {
		ch.sub.SetCaller(ch.caller())
	}
	ch.armExpiry(claims)
}
