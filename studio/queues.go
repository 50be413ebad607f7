package studio

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/httpx"
)

// The Queues screen works through pgmq's SQL interface (sql/platform 0021):
// queues with their depth and the age of their oldest message, create and
// drop, peek at messages without taking them (the visibility timeout is
// left alone), send, archive and delete. Queue names reach SQL only as
// arguments of pgmq's functions, which check and quote them.

// queueList answers every queue with pgmq.metrics and its archive's size.
func (s *Service) queueList(w http.ResponseWriter, r *http.Request) error {
	var out json.RawMessage
	err := s.d.Admin.QueryRow(r.Context(), `SELECT coalesce(json_agg(x ORDER BY x.queue_name), '[]') FROM (
	  SELECT q.queue_name, q.is_unlogged, q.created_at, m.queue_length, m.queue_visible_length,
	    m.oldest_msg_age_sec, m.newest_msg_age_sec, m.total_messages,
	    (SELECT c.reltuples::int8 FROM pg_class c WHERE c.oid = to_regclass(pgmq._table('a', q.queue_name))) AS archived_estimate
	  FROM pgmq.list_queues() q CROSS JOIN LATERAL pgmq.metrics(q.queue_name) m) x`).Scan(&out)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

// queueExists refuses a queue pgmq does not list.
func (s *Service) queueExists(ctx context.Context, db interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, name string) error {
	var ok bool
	if err := db.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pgmq.meta WHERE queue_name = lower($1))`, name).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return notFound("Cannot find a queue named %s", name)
	}
	return nil
}

// createQueue is pgmq.create (or create_unlogged): {queue_name, unlogged}.
func (s *Service) createQueue(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Name     string `json:"queue_name"`
		Unlogged bool   `json:"unlogged"`
	}
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	noteAudit(r.Context(), "queue "+b.Name, nil)
	if b.Name == "" {
		return badRequest("queue_name is required")
	}
	var exists bool
	if err := s.d.Admin.QueryRow(r.Context(), `SELECT EXISTS (SELECT FROM pgmq.meta WHERE queue_name = lower($1))`, b.Name).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return &httpError{http.StatusConflict, errorBody{Error: "a queue named " + b.Name + " exists already"}}
	}
	fn := "pgmq.create"
	if b.Unlogged {
		fn = "pgmq.create_unlogged"
	}
	if _, err := s.d.Admin.Exec(r.Context(), `SELECT `+fn+`($1)`, b.Name); err != nil {
		return err
	}
	return s.oneQueue(w, r, b.Name, http.StatusCreated)
}

func (s *Service) oneQueue(w http.ResponseWriter, r *http.Request, name string, status int) error {
	var out json.RawMessage
	err := s.d.Admin.QueryRow(r.Context(), `SELECT to_json(x) FROM (SELECT q.queue_name, q.is_unlogged, q.created_at, m.queue_length,
	    m.queue_visible_length, m.oldest_msg_age_sec, m.newest_msg_age_sec, m.total_messages
	  FROM pgmq.list_queues() q CROSS JOIN LATERAL pgmq.metrics(q.queue_name) m WHERE q.queue_name = lower($1)) x`, name).Scan(&out)
	if isNoRows(err) {
		return notFound("Cannot find a queue named %s", name)
	} else if err != nil {
		return err
	}
	writeRaw(w, status, out)
	return nil
}

// dropQueue is pgmq.drop_queue: the queue, its messages and its archive.
func (s *Service) dropQueue(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	noteAudit(r.Context(), "queue "+name, nil)
	if err := s.queueExists(r.Context(), s.d.Admin, name); err != nil {
		return err
	}
	var ok bool
	if err := s.d.Admin.QueryRow(r.Context(), `SELECT pgmq.drop_queue($1)`, name).Scan(&ok); err != nil {
		return err
	}
	return okJSON(w, map[string]any{"queue_name": name, "dropped": ok})
}

// purgeQueue is pgmq.purge_queue: every message goes, the queue stays.
func (s *Service) purgeQueue(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	noteAudit(r.Context(), "queue "+name, nil)
	if err := s.queueExists(r.Context(), s.d.Admin, name); err != nil {
		return err
	}
	var n int64
	if err := s.d.Admin.QueryRow(r.Context(), `SELECT pgmq.purge_queue($1)`, name).Scan(&n); err != nil {
		return err
	}
	noteAudit(r.Context(), "", map[string]any{"purged": n})
	return okJSON(w, map[string]any{"queue_name": name, "purged": n})
}

// queueMessages peeks at a queue's messages, oldest first, or at its
// archive (?archive=true, newest first), without reading them: read_ct and
// vt stay as they are. ?limit= (50, at most 500), ?offset=.
func (s *Service) queueMessages(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	limit, err := queryLimit(r, 50, 500)
	if err != nil {
		return err
	}
	offset := 0
	if v := r.URL.Query().Get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil || offset < 0 {
			return badRequest("offset must be a number of messages")
		}
	}
	if err := s.queueExists(r.Context(), s.d.Admin, name); err != nil {
		return err
	}
	kind, cols, order := "q", "", "msg_id"
	if r.URL.Query().Get("archive") == "true" {
		kind, cols, order = "a", ", archived_at", "archived_at DESC, msg_id DESC"
	}
	var table string
	if err := s.d.Admin.QueryRow(r.Context(), `SELECT pgmq._table($1, $2)`, kind, name).Scan(&table); err != nil {
		return err
	}
	var out json.RawMessage
	// table is pgmq's own quoting of a name it checked.
	err = s.d.Admin.QueryRow(r.Context(), `SELECT coalesce(json_agg(x), '[]') FROM (
	  SELECT msg_id, read_ct, enqueued_at, last_read_at, vt, vt <= clock_timestamp() AS visible, message, headers`+cols+`
	  FROM `+table+` ORDER BY `+order+` LIMIT $1 OFFSET $2) x`, limit, offset).Scan(&out)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

// sendMessage is pgmq.send: {message, delay (seconds)}.
func (s *Service) sendMessage(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	var b struct {
		Message json.RawMessage `json:"message"`
		Delay   int             `json:"delay"`
	}
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	noteAudit(r.Context(), "queue "+name, nil)
	if len(b.Message) == 0 {
		return badRequest("message is required (any JSON value)")
	}
	if b.Delay < 0 {
		return badRequest("delay must be a number of seconds, 0 or more")
	}
	if err := s.queueExists(r.Context(), s.d.Admin, name); err != nil {
		return err
	}
	var id int64
	if err := s.d.Admin.QueryRow(r.Context(), `SELECT * FROM pgmq.send($1, $2::jsonb, $3::int)`, name, string(b.Message), b.Delay).Scan(&id); err != nil {
		return err
	}
	noteAudit(r.Context(), "", map[string]any{"msg_id": id})
	httpx.WriteJSON(w, http.StatusCreated, map[string]any{"msg_id": id})
	return nil
}

// messageAction archives (pgmq.archive) or deletes (pgmq.delete) one
// message; a message already gone is 404, so each happens once.
func (s *Service) messageAction(fn string) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		name := r.PathValue("name")
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		noteAudit(r.Context(), "queue "+name+" message "+r.PathValue("id"), nil)
		if err != nil {
			return notFound("Cannot find message %s", r.PathValue("id"))
		}
		if err := s.queueExists(r.Context(), s.d.Admin, name); err != nil {
			return err
		}
		var ok bool
		if err := s.d.Admin.QueryRow(r.Context(), `SELECT `+fn+`($1, $2::int8)`, name, id).Scan(&ok); err != nil {
			return err
		}
		if !ok {
			return notFound("Cannot find message %d in queue %s", id, name)
		}
		return okJSON(w, map[string]any{"msg_id": id, "queue_name": name})
	}
}
