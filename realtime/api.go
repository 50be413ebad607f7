package realtime

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
)

// apiClaims authenticates a REST broadcast: the bearer token, else the
// apikey header, with role and exp.
func (s *Service) apiClaims(r *http.Request) (*jwt.Claims, bool) {
	token := ""
	if scheme, t, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		token = strings.TrimSpace(t)
	}
	if token == "" {
		token = r.Header.Get("apikey")
	}
	if token == "" {
		return nil, false
	}
	c, err := s.verifyToken(token)
	return c, err == nil
}

func unauthorized(w http.ResponseWriter, status int) {
	httpx.WriteJSON(w, status, map[string]string{"message": "Unauthorized"})
}

// apiMessage is one message of a batch broadcast.
type apiMessage struct {
	Topic   *string         `json:"topic"`
	Event   *string         `json:"event"`
	Payload json.RawMessage `json:"payload"`
	Private flexBool        `json:"private"`
	ID      *string         `json:"id"`
}

// apiBroadcast is POST /api/broadcast: a batch of JSON broadcasts, each
// delivered as {type, event, payload[, meta:{id}]}. Private messages the
// caller may not write are skipped, and the answer is still 202.
func (s *Service) apiBroadcast(w http.ResponseWriter, r *http.Request) {
	claims, ok := s.apiClaims(r)
	if !ok {
		unauthorized(w, http.StatusUnauthorized)
		return
	}
	var body struct {
		Messages []apiMessage `json:"messages"`
	}
	// An empty list is as blank as a missing one, as Ecto's required embeds.
	if err := json.NewDecoder(io.LimitReader(r.Body, s.cfg.MaxFrameBytes)).Decode(&body); err != nil || len(body.Messages) == 0 {
		httpx.WriteJSON(w, http.StatusUnprocessableEntity, map[string]any{"errors": map[string]any{"messages": []string{"can't be blank"}}})
		return
	}
	if errs, bad := validateMessages(body.Messages, s.cfg.MaxPayloadBytes); bad {
		httpx.WriteJSON(w, http.StatusUnprocessableEntity, map[string]any{"errors": map[string]any{"messages": errs}})
		return
	}
	client := s.clients.acquire(clientOf(claims, httpx.ClientIP(r)))
	defer s.clients.release(client, false)
	if s.clients.overEvents(client) {
		httpx.WriteJSON(w, http.StatusTooManyRequests, map[string]string{"message": "You have exceeded your rate limit"})
		return
	}
	if !s.clients.eventsRoom(client, int64(len(body.Messages))) {
		httpx.WriteJSON(w, http.StatusTooManyRequests, map[string]string{"message": "Too many messages to broadcast, please reduce the batch size"})
		return
	}
	allowed := map[string]bool{}
	for _, m := range body.Messages {
		client.events.Add(1)
		topic := "realtime:" + *m.Topic
		if m.Private {
			ok, seen := allowed[*m.Topic]
			if !seen {
				ok = s.apiWriteAllowed(r, claims, *m.Topic)
				allowed[*m.Topic] = ok
			}
			if !ok {
				continue
			}
		}
		var meta json.RawMessage
		if m.ID != nil {
			meta, _ = json.Marshal(map[string]string{"id": *m.ID})
		}
		s.publish(tkey{private: bool(m.Private), topic: topic},
			newJSONMsg(topic, "broadcast", broadcastPayload(*m.Event, m.Payload, meta)), nil)
	}
	w.WriteHeader(http.StatusAccepted)
}

// validateMessages reports the per-message errors the reference's
// changeset gives: required fields and the payload size.
func validateMessages(ms []apiMessage, maxBytes int) ([]map[string][]string, bool) {
	out := make([]map[string][]string, len(ms))
	bad := false
	for i, m := range ms {
		e := map[string][]string{}
		if m.Topic == nil {
			e["topic"] = []string{"can't be blank"}
		}
		if m.Event == nil {
			e["event"] = []string{"can't be blank"}
		}
		if len(m.Payload) == 0 || string(m.Payload) == "null" {
			e["payload"] = []string{"can't be blank"}
		} else if len(m.Payload) > maxBytes {
			e["payload"] = []string{"Payload size exceeds tenant limit"}
		}
		if len(e) > 0 {
			bad = true
		}
		out[i] = e
	}
	return out, bad
}

// apiWriteAllowed runs the broadcast write policy for a REST caller.
func (s *Service) apiWriteAllowed(r *http.Request, claims *jwt.Claims, topic string) bool {
	c := pg.Caller{Role: claims.Role, Claims: claims.Raw, Headers: pg.RequestHeaders(r),
		After: []pg.Setting{{Name: "realtime.topic", Value: topic}}}
	ok, err := s.probeWrite(r.Context(), c, topic, extBroadcast)
	if err != nil {
		s.log.Warn("realtime: write policies", "topic", topic, "err", err)
	}
	return ok
}

// apiBroadcastEvent is POST /api/broadcast/{topic}/events/{event}: the body
// is the payload itself, JSON or raw bytes, delivered as a kind-4 frame.
func (s *Service) apiBroadcastEvent(w http.ResponseWriter, r *http.Request) {
	claims, ok := s.apiClaims(r)
	if !ok {
		unauthorized(w, http.StatusUnauthorized)
		return
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	enc := byte(encodingJSON)
	switch mt {
	case "application/json":
	case "application/octet-stream":
		enc = encodingBinary
	default:
		httpx.WriteJSON(w, http.StatusUnsupportedMediaType,
			map[string]string{"error": "Unsupported Media Type. Use application/json or application/octet-stream"})
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, int64(s.cfg.MaxPayloadBytes)+1))
	if err != nil {
		return
	}
	if len(body) > s.cfg.MaxPayloadBytes {
		httpx.WriteJSON(w, http.StatusUnprocessableEntity, map[string]any{"errors": map[string]any{"payload": []string{"Payload size exceeds tenant limit"}}})
		return
	}
	if enc == encodingJSON && !json.Valid(body) {
		httpx.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "Invalid JSON payload"})
		return
	}
	name, event := r.PathValue("topic"), r.PathValue("event")
	private := strings.EqualFold(r.URL.Query().Get("private"), "true")
	if private && !s.apiWriteAllowed(r, claims, name) {
		unauthorized(w, http.StatusForbidden)
		return
	}
	client := s.clients.acquire(clientOf(claims, httpx.ClientIP(r)))
	defer s.clients.release(client, false)
	if s.clients.overEvents(client) {
		httpx.WriteJSON(w, http.StatusTooManyRequests, map[string]string{"message": "You have exceeded your rate limit"})
		return
	}
	client.events.Add(1)
	topic := "realtime:" + name
	s.publish(tkey{private: private, topic: topic},
		newUserBroadcastMsg(topic, &userBroadcast{Event: event, Encoding: enc, Payload: body}), nil)
	w.WriteHeader(http.StatusAccepted)
}

// parseReplay reads broadcast.replay {since, limit}: limit defaults to 25
// and is clamped to 1..25.
func parseReplay(raw json.RawMessage) (since int64, limit int, ok bool) {
	var p struct {
		Since *json.Number `json:"since"`
		Limit *json.Number `json:"limit"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if dec.Decode(&p) != nil || p.Since == nil {
		return 0, 0, false
	}
	since, err := p.Since.Int64()
	if err != nil {
		return 0, 0, false
	}
	limit = 25
	if p.Limit != nil {
		n, err := p.Limit.Int64()
		if err != nil {
			return 0, 0, false
		}
		limit = int(min(max(n, 1), 25))
	}
	return since, limit, true
}

// replay re-sends stored private broadcasts after the join, oldest first,
// each with meta {replayed: true, id}.
func (s *Service) replay(ch *channel, raw json.RawMessage) {
	since, limit, _ := parseReplay(raw)
	ctx, cancel := context.WithTimeout(s.ctx, 10000*1e6)
	defer cancel()
	rows, err := s.admin.Query(ctx, `SELECT id::text, coalesce(event, ''), coalesce(payload, '{}'::jsonb) FROM (
		SELECT * FROM realtime.messages WHERE topic = $1 AND private AND extension = 'broadcast'
		  AND inserted_at >= to_timestamp($2::float8 / 1000) AT TIME ZONE 'UTC'
		ORDER BY inserted_at DESC LIMIT $3) m ORDER BY inserted_at`, ch.name, since, limit)
	if err != nil {
		s.log.Warn("realtime: replay", "topic", ch.name, "err", err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var id, event string
		var payload json.RawMessage
		if rows.Scan(&id, &event, &payload) != nil {
			return
		}
		payload = compact(payload)
		meta, _ := json.Marshal(map[string]any{"replayed": true, "id": id})
		// Pushed on the channel (with its join_ref), as the reference's replay.
		ch.c.push(ch.joinRef, ch.topic, "broadcast", broadcastPayload(event, payload, meta))
	}
}
