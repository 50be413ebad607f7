package realtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// ext is a realtime.messages extension a policy can allow.
type ext int

const (
	extBroadcast ext = iota
	extPresence
)

var extNames = [...]string{"broadcast", "presence"}

// tri is a policy decision not made yet, allowed or denied.
type tri int8

const (
	unknown tri = iota
	allowed
	denied
)

// policies are a private channel's decisions, made lazily and cached until
// the token changes (Realtime Authorization).
type policies struct {
	read, write [2]tri
}

func (p policies) has(e ext) bool { return p.read[e] != unknown }

func decide(ok bool) tri {
	if ok {
		return allowed
	}
	return denied
}

// readAllowed reports whether the channel may read e; public channels may.
func (ch *channel) readAllowed(e ext) bool {
	if !ch.private {
		return true
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.policy.read[e] == allowed
}

func (ch *channel) snapshotPolicy() policies {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.policy
}

// msgDatabaseUnavailable is the reference's reason when the policies could
// not be run at all.
const msgDatabaseUnavailable = "Realtime was unable to connect to the project database"

// errReadDenied words a join or token refresh the read policies refuse.
func errReadDenied(name string) error {
	return &joinError{reason: "Unauthorized: You do not have permissions to read from this Channel topic: " + name}
}

// authorizeRead evaluates the SELECT policies of realtime.messages for
// broadcast (and presence when asked) as the reference does: probe rows
// are inserted as service_role, read back as the caller, and everything is
// rolled back. The channel must be allowed to read at least one of them.
func (ch *channel) authorizeRead(withPresence bool) error {
	exts := []ext{extBroadcast}
	if withPresence {
		exts = append(exts, extPresence)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := ch.c.s.probeRead(ctx, ch.caller(), ch.name, exts)
	if err != nil {
		ch.c.s.log.Warn("realtime: read policies", "topic", ch.name, "err", err)
		if pg.Unavailable(err) {
			return refuse(msgDatabaseUnavailable)
		}
		// A policy that fails counts as a refusal, as the reference's
		// RlsPolicyError.
		return errReadDenied(ch.name)
	}
	ch.mu.Lock()
	for i, e := range exts {
		ch.policy.read[e] = decide(got[i])
	}
	ok := ch.policy.read[extBroadcast] == allowed || ch.policy.read[extPresence] == allowed
	ch.mu.Unlock()
	if !ok {
		return errReadDenied(ch.name)
	}
	return nil
}

// recheckRead runs a private channel's read policies again after its
// token or the data behind them changed (prev: the decisions before), and
// closes the channel, as the reference does, when it may read neither
// broadcast nor presence any more, or no longer what it could. It reports
// whether the channel stays open.
func (ch *channel) recheckRead(prev policies) bool {
	if err := ch.authorizeRead(prev.has(extPresence)); err != nil {
		// The system message carries the text without the join code.
		ch.shutdown(strings.TrimPrefix(err.Error(), "Unauthorized: "))
		return false
	}
	now := ch.snapshotPolicy()
	if (prev.read[extBroadcast] == allowed && now.read[extBroadcast] == denied) ||
		(prev.read[extPresence] == allowed && now.read[extPresence] == denied) {
		ch.shutdown("You no longer have permission to read from this Channel topic: " + ch.name)
		return false
	}
	return true
}

// notifyReauthorize is the notification realtime.reauthorize_user(user id)
// sends when its transaction commits.
const notifyReauthorize = "realtime_reauthorize"

// reauthorizeUser runs the read policies of every private channel on this
// node that acts for user (its token's sub) again, closing those that now
// fail: what realtime.reauthorize_user asks of every node after the
// user's access was taken away. Their write decisions are forgotten, so
// the next broadcast or track asks the policies again too.
func (s *Service) reauthorizeUser(user string) {
	var chans []*channel
	s.hub.mu.RLock()
	for k, ts := range s.hub.topics {
		if !k.private {
			continue
		}
		for ch := range ts.subs {
			ch.mu.Lock()
			mine := ch.claims.Subject == user
			ch.mu.Unlock()
			if mine {
				chans = append(chans, ch)
			}
		}
	}
	s.hub.mu.RUnlock()
	for _, ch := range chans {
		go func() {
			if ch.stopped.Load() {
				return
			}
			ch.mu.Lock()
			prev := ch.policy
			ch.policy.write = [2]tri{}
			ch.mu.Unlock()
			ch.recheckRead(prev)
		}()
	}
}

// probeRead returns, per extension, whether caller may read a message of
// topic.
func (s *Service) probeRead(ctx context.Context, caller pg.Caller, topic string, exts []ext) ([]bool, error) {
	tx, err := s.user.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	service := pg.Caller{Role: "service_role", Headers: caller.Headers, After: caller.After}
	if err := pg.SetupTx(ctx, tx, service); err != nil {
		return nil, err
	}
	ids := make([]string, len(exts))
	for i, e := range exts {
		if err := tx.QueryRow(ctx, `INSERT INTO realtime.messages (topic, extension) VALUES ($1, $2) RETURNING id::text`,
			topic, extNames[e]).Scan(&ids[i]); err != nil {
			return nil, fmt.Errorf("insert probe: %w", err)
		}
	}
	if err := pg.SetupTx(ctx, tx, caller); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, `SELECT id::text FROM realtime.messages WHERE id = ANY($1::uuid[])`, ids)
	if err != nil {
		return nil, fmt.Errorf("read probe: %w", err)
	}
	seen, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read probe: %w", err)
	}
	out := make([]bool, len(exts))
	for i, id := range ids {
		for _, v := range seen {
			out[i] = out[i] || v == id
		}
	}
	return out, nil
}

// writeAllowed decides (once per token) whether the channel may write e:
// an INSERT into realtime.messages as the caller, rolled back.
func (ch *channel) writeAllowed(e ext) bool {
	if !ch.private {
		return true
	}
	ch.mu.Lock()
	d := ch.policy.write[e]
	ch.mu.Unlock()
	if d != unknown {
		return d == allowed
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok, err := ch.c.s.probeWrite(ctx, ch.caller(), ch.name, e)
	if err != nil {
		ch.c.s.log.Warn("realtime: write policies", "topic", ch.name, "err", err)
		return false
	}
	ch.mu.Lock()
	ch.policy.write[e] = decide(ok)
	ch.mu.Unlock()
	return ok
}

// errRollback ends a probe transaction.
var errRollback = errors.New("rollback")

// probeWrite reports whether caller may insert a message of topic and e.
func (s *Service) probeWrite(ctx context.Context, caller pg.Caller, topic string, e ext) (bool, error) {
	var allowedInsert bool
	err := pg.AsCaller(ctx, s.user, caller, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO realtime.messages (topic, extension) VALUES ($1, $2)`, topic, extNames[e])
		switch {
		case err == nil:
			allowedInsert = true
		case pg.Is(err, "42501"):
		default:
			return err
		}
		return errRollback
	})
	if errors.Is(err, errRollback) {
		err = nil
	}
	return allowedInsert, err
}
