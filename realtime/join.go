package realtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"hash/fnv"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// flexBool is the reference's FlexibleBoolean: true/false, or the strings
// "true"/"false" in any case. Anything else counts as unset.
type flexBool bool

func (b *flexBool) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil
	}
	switch x := v.(type) {
	case bool:
		*b = flexBool(x)
	case string:
		*b = flexBool(strings.EqualFold(x, "true"))
	}
	return nil
}

// joinConfig is the phx_join payload as realtime-js 2.x sends it. Fields of
// the wrong type are ignored, as the reference falls back to defaults for
// an invalid payload.
type joinConfig struct {
	ack, self, private bool
	replicationReady   bool
	replay             json.RawMessage
	presenceEnabled    bool
	presenceKey        string
	postgresChanges    []json.RawMessage // each a JSON object, in request order
	hasConfig          bool
	accessToken        *string
	// waitChanges holds the join reply until the postgres_changes
	// subscription is live, for at most waitTimeout
	// (postgres_changes_options).
	waitChanges bool
	waitTimeout time.Duration
}

// postgres_changes_options.timeout: the reference's default and the most
// it allows (it blocks the socket meanwhile).
const (
	defaultWaitTimeout = 15 * time.Second
	maxWaitTimeout     = 20 * time.Second
)

// changesOptions is postgres_changes_options as sent.
type changesOptions struct {
	Wait    flexBool        `json:"wait"`
	Timeout json.RawMessage `json:"timeout"`
}

// timeout reads the timeout in milliseconds as the reference casts it (an
// integer, or a string holding one), clamped to its maximum; anything else
// is the default.
func (o changesOptions) timeout() time.Duration {
	var n json.Number
	if s, err := strconv.Unquote(string(o.Timeout)); err == nil {
		n = json.Number(s)
	} else {
		n = json.Number(o.Timeout)
	}
	ms, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return defaultWaitTimeout
	}
	return min(time.Duration(ms)*time.Millisecond, maxWaitTimeout)
}

// parseJoin reads a join payload leniently.
func parseJoin(payload json.RawMessage) joinConfig {
	var raw struct {
		Config      json.RawMessage `json:"config"`
		AccessToken json.RawMessage `json:"access_token"`
		UserToken   json.RawMessage `json:"user_token"`
	}
	_ = json.Unmarshal(payload, &raw)
	var jc joinConfig
	for _, t := range []json.RawMessage{raw.UserToken, raw.AccessToken} {
		var s string
		if json.Unmarshal(t, &s) == nil && s != "" {
			jc.accessToken = &s
			break
		}
	}
	var cfg struct {
		Broadcast struct {
			Ack              flexBool        `json:"ack"`
			Self             flexBool        `json:"self"`
			ReplicationReady flexBool        `json:"replication_ready"`
			Replay           json.RawMessage `json:"replay"`
		} `json:"broadcast"`
		Presence struct {
			Enabled flexBool        `json:"enabled"`
			Key     json.RawMessage `json:"key"`
		} `json:"presence"`
		PostgresChanges []json.RawMessage `json:"postgres_changes"`
		ChangesOptions  changesOptions    `json:"postgres_changes_options"`
		Private         flexBool          `json:"private"`
	}
	if len(raw.Config) == 0 || bytes.Equal(raw.Config, jsonNull) {
		return jc
	}
	jc.hasConfig = true
	if json.Unmarshal(raw.Config, &cfg) != nil {
		// A config of the wrong shape: take what each part says on its own.
		var parts map[string]json.RawMessage
		_ = json.Unmarshal(raw.Config, &parts)
		_ = json.Unmarshal(parts["broadcast"], &cfg.Broadcast)
		_ = json.Unmarshal(parts["presence"], &cfg.Presence)
		_ = json.Unmarshal(parts["postgres_changes"], &cfg.PostgresChanges)
		_ = json.Unmarshal(parts["postgres_changes_options"], &cfg.ChangesOptions)
		_ = json.Unmarshal(parts["private"], &cfg.Private)
	}
	jc.waitChanges = bool(cfg.ChangesOptions.Wait)
	jc.waitTimeout = cfg.ChangesOptions.timeout()
	jc.ack, jc.self = bool(cfg.Broadcast.Ack), bool(cfg.Broadcast.Self)
	jc.replicationReady = bool(cfg.Broadcast.ReplicationReady)
	jc.replay = nullable(cfg.Broadcast.Replay)
	jc.presenceEnabled = bool(cfg.Presence.Enabled)
	jc.private = bool(cfg.Private)
	var key any
	if json.Unmarshal(cfg.Presence.Key, &key) == nil {
		switch k := key.(type) {
		case string:
			jc.presenceKey = k
		case nil:
		default:
			jc.presenceKey = string(bytes.TrimSpace(cfg.Presence.Key))
		}
	}
	if jc.presenceKey == "" {
		jc.presenceKey = uuid.NewString()
	}
	for _, pc := range cfg.PostgresChanges {
		if pc = bytes.TrimSpace(pc); len(pc) > 0 && pc[0] == '{' {
			jc.postgresChanges = append(jc.postgresChanges, pc)
		}
	}
	return jc
}

// bindingID is the server id of one postgres_changes item: a stable
// non-negative 27-bit hash of its parameters, the same range as the
// reference's :erlang.phash2, so identical items get identical ids.
func bindingID(params map[string]any) int64 {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := fnv.New32a()
	for _, k := range keys {
		v, _ := json.Marshal(params[k])
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write(v)
		h.Write([]byte{0})
	}
	return int64(h.Sum32() & (1<<27 - 1))
}

// joinError is a refused join: the reason sent in the error reply, and
// whether the socket is disconnected too.
type joinError struct {
	reason     string
	disconnect bool
}

func (e *joinError) Error() string { return e.reason }

func refuse(reason string) error { return &joinError{reason: reason} }

// asJoinError maps any failure to the reply's reason.
func asJoinError(err error) *joinError {
	var je *joinError
	if errors.As(err, &je) {
		return je
	}
	var te *tokenError
	if errors.As(err, &te) {
		return &joinError{reason: te.Error()}
	}
	return &joinError{reason: "Unknown Error on Channel"}
}

// replyJoinError answers a refused join after the reference's pause, off
// the socket's read loop so its other channels carry on meanwhile.
func (s *Service) replyJoinError(c *conn, m *message, je *joinError) {
	body, _ := json.Marshal(map[string]string{"reason": je.reason})
	// Limits are the server's decision and worth seeing; a refused token or
	// policy is the client's business.
	level := slog.LevelDebug
	if strings.Contains(je.reason, "RateLimitReached") {
		level = slog.LevelInfo
	}
	s.log.Log(s.ctx, level, "realtime: join refused", "topic", m.Topic, "reason", je.reason)
	send := func() {
		c.reply(m.JoinRef, m.Ref, m.Topic, "error", body)
		if je.disconnect {
			c.closeGracefully(1000, "", endCause{why: je.reason, byServer: true})
		}
	}
	if s.cfg.ErrorBackoff <= 0 {
		send()
		return
	}
	time.AfterFunc(s.cfg.ErrorBackoff, send)
}
