package studio

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
)

// The realtime inspector joins channels from the browser, straight to the
// API's websocket, with a token Studio's server signs for the role or user
// the operator chose: the browser holds the anon key (public) and that
// token, never the service-role key.

// realtimeTokenTTL is how long an inspector's token lasts.
const realtimeTokenTTL = time.Hour

// realtimeToken signs an access token for anon, authenticated (no user)
// or a user (the claims GoTrue would give them). The service role is
// refused: its token would be the key by another name.
func (s *Service) realtimeToken(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Role   string `json:"role"`
		UserID string `json:"user_id"`
	}
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	q := map[string][]string{}
	switch {
	case in.UserID != "":
		q["user"] = []string{in.UserID}
	case in.Role == "anon" || in.Role == "authenticated":
		q["role"] = []string{in.Role}
	default:
		return badRequest("role must be anon or authenticated, or give a user_id: the inspector never acts as the service role")
	}
	v, err := s.parseViewAs(r.Context(), q)
	if err != nil {
		return err
	}
	out := map[string]any{"role": v.Role, "user_id": v.UserID, "email": v.Email, "anon_key": s.d.Keys.AnonKey,
		"api_url": s.d.ProjectURL, "expires_in": int(realtimeTokenTTL.Seconds())}
	noteAudit(r.Context(), "realtime as "+v.Role+" "+v.UserID, nil)
	if v.Role == "anon" {
		out["access_token"] = s.d.Keys.AnonKey
		return okJSON(w, out)
	}
	claims := gojwt.MapClaims{}
	if err := json.Unmarshal(v.claims, &claims); err != nil {
		return err
	}
	now := time.Now()
	claims["iat"], claims["exp"] = now.Unix(), now.Add(realtimeTokenTTL).Unix()
	if _, ok := claims["aud"]; !ok {
		claims["aud"] = "authenticated"
	}
	token, err := s.d.Keys.Sign(claims)
	if err != nil {
		return err
	}
	out["access_token"] = token
	return okJSON(w, out)
}

// realtimeStatus is the inspector's side panel: this node's open sockets
// (from the metrics), every node's sockets that joined a channel, and
// every replication slot with its lag.
func (s *Service) realtimeStatus(w http.ResponseWriter, r *http.Request) error {
	_, proc := s.readMetrics()
	var slots json.RawMessage
	err := s.d.Admin.QueryRow(r.Context(), `SELECT coalesce(json_agg(x ORDER BY x.slot_name), '[]') FROM (
		SELECT slot_name, plugin, slot_type, database, active, active_pid, wal_status,
		       CASE WHEN pg_is_in_recovery() THEN NULL
		            ELSE pg_wal_lsn_diff(pg_current_wal_lsn(), coalesce(confirmed_flush_lsn, restart_lsn))::int8 END AS lag_bytes
		FROM pg_replication_slots) x`).Scan(&slots)
	if err != nil {
		return err
	}
	return okJSON(w, map[string]any{"sockets": proc["basalt_realtime_sockets"], "nodes": s.realtimeNodes(), "slots": slots, "api_url": s.d.ProjectURL})
}

// realtimeNode is one node's count in basalt_realtime_node_sockets.
type realtimeNode struct {
	Node    string `json:"node"`
	Sockets int64  `json:"sockets"`
	Self    bool   `json:"self"`
}

// realtimeNodes reads basalt_realtime_node_sockets: each node of the
// project (this one first) with its sockets that joined a channel, as the
// realtime service last heard them (the nodes tell each other through
// LISTEN/NOTIFY in cluster mode).
func (s *Service) realtimeNodes() []realtimeNode {
	out := []realtimeNode{}
	if s.d.Metrics == nil {
		return out
	}
	families, err := s.d.Metrics.Gather()
	if err != nil {
		s.log.Warn("studio: gather metrics", "err", err)
	}
	for _, f := range families {
		if f.GetName() != "basalt_realtime_node_sockets" {
			continue
		}
		for _, m := range f.GetMetric() {
			n := realtimeNode{Sockets: int64(m.GetGauge().GetValue())}
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "node":
					n.Node = l.GetValue()
				case "self":
					n.Self = l.GetValue() == "true"
				}
			}
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b realtimeNode) int {
		if a.Self != b.Self {
			if a.Self {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Node, b.Node)
	})
	return out
}
