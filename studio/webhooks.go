package studio

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/lazy"
)

// The Database Webhooks screen: a webhook is what Supabase's dashboard
// makes, a row trigger running supabase_functions.http_request(url, method,
// headers, params, timeout_ms) (sql/platform 0022), so hooks made with SQL
// the Supabase way are listed here too. Each firing is logged in
// supabase_functions.hooks with the pg_net request it queued; its answer
// (or error) lands in net._http_response.

// webhooksSQL lists every trigger that runs supabase_functions.http_request.
const webhooksSQL = `SELECT
  t.oid::int8 AS id, t.tgname AS name, n.nspname AS schema, c.relname AS table, c.oid::int8 AS table_id,
  t.tgenabled <> 'D' AS enabled,
  array_remove(ARRAY[CASE WHEN t.tgtype & 4 = 4 THEN 'INSERT' END, CASE WHEN t.tgtype & 16 = 16 THEN 'UPDATE' END,
    CASE WHEN t.tgtype & 8 = 8 THEN 'DELETE' END], NULL) AS events,
  a.args[1] AS url, a.args[2] AS method,
  CASE WHEN a.args[3] IS NULL OR a.args[3] = 'null' THEN '{}'::jsonb ELSE a.args[3]::jsonb END AS headers,
  CASE WHEN a.args[4] IS NULL OR a.args[4] = 'null' THEN '{}'::jsonb ELSE a.args[4]::jsonb END AS params,
  coalesce(nullif(a.args[5], 'null')::int, 1000) AS timeout_ms
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL (SELECT (string_to_array(encode(t.tgargs, 'escape'), '\000'))[:t.tgnargs] AS args) a
WHERE NOT t.tgisinternal AND t.tgfoid = 'supabase_functions.http_request()'::regprocedure`

func (s *Service) webhookList(w http.ResponseWriter, r *http.Request) error {
	var out json.RawMessage
	err := s.d.Admin.QueryRow(r.Context(), `SELECT coalesce(json_agg(x ORDER BY x.schema, x.table, x.name), '[]') FROM (
	  SELECT b.*,
	    (SELECT count(*) FROM supabase_functions.hooks h WHERE h.hook_table_id = b.table_id AND h.hook_name = b.name) AS fired,
	    (SELECT max(h.created_at) FROM supabase_functions.hooks h WHERE h.hook_table_id = b.table_id AND h.hook_name = b.name) AS last_fired_at
	  FROM (`+webhooksSQL+`) b) x`).Scan(&out)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

// webhookName is what a webhook may be called: it becomes a trigger name.
var webhookName = lazy.NewRegexp(`^[A-Za-z_][A-Za-z0-9_ -]{0,62}$`)

// webhookDef is what a webhook's trigger says: {name, schema, table,
// events (INSERT, UPDATE, DELETE), url, method (POST or GET), headers,
// params, timeout_ms (1 to 10,000)}.
type webhookDef struct {
	Name      string            `json:"name"`
	Schema    string            `json:"schema"`
	Table     string            `json:"table"`
	Events    []string          `json:"events"`
	URL       string            `json:"url"`
	Method    string            `json:"method"`
	Headers   map[string]string `json:"headers"`
	Params    map[string]string `json:"params"`
	TimeoutMS *int              `json:"timeout_ms"`
}

// check validates d and fills its defaults.
func (d *webhookDef) check() error {
	if d.Method == "" {
		d.Method = "POST"
	}
	if d.Method != "POST" && d.Method != "GET" {
		return badRequest("method must be POST or GET")
	}
	if !strings.HasPrefix(d.URL, "http://") && !strings.HasPrefix(d.URL, "https://") || len(d.URL) > 2048 {
		return badRequest("url must be an http:// or https:// URL (at most 2,048 characters)")
	}
	if d.TimeoutMS == nil {
		d.TimeoutMS = new(int)
		*d.TimeoutMS = 5000
	}
	if *d.TimeoutMS < 1 || *d.TimeoutMS > 10000 {
		return badRequest("timeout_ms must be from 1 to 10,000 milliseconds")
	}
	if d.Headers == nil {
		d.Headers = map[string]string{"Content-Type": "application/json"}
	}
	if d.Params == nil {
		d.Params = map[string]string{}
	}
	_, err := webhookEvents(d.Events)
	return err
}

// writeTrigger creates d's trigger, or replaces it in place (CREATE OR
// REPLACE keeps the trigger's oid, the webhook's id).
func (d *webhookDef) writeTrigger(ctx context.Context, tx pgx.Tx, replace bool) error {
	events, err := webhookEvents(d.Events)
	if err != nil {
		return err
	}
	headers, _ := json.Marshal(d.Headers)
	params, _ := json.Marshal(d.Params)
	verb := "CREATE"
	if replace {
		verb = "CREATE OR REPLACE"
	}
	var sql string
	if err := tx.QueryRow(ctx, `SELECT format('`+verb+` TRIGGER %I AFTER `+events+` ON %I.%I FOR EACH ROW '
		|| 'EXECUTE FUNCTION supabase_functions.http_request(%L, %L, %L, %L, %L)', $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text)`,
		d.Name, d.Schema, d.Table, d.URL, d.Method, string(headers), string(params), strconv.Itoa(*d.TimeoutMS)).Scan(&sql); err != nil {
		return err
	}
	return execOne(ctx, tx, sql)
}

// createWebhook makes the trigger Supabase's dashboard makes (webhookDef).
func (s *Service) createWebhook(w http.ResponseWriter, r *http.Request) error {
	var b webhookDef
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	if b.Schema == "" {
		b.Schema = "public"
	}
	noteAudit(r.Context(), "webhook "+b.Name+" on "+b.Schema+"."+b.Table, nil)
	if !webhookName.MatchString(b.Name) {
		return badRequest("name must start with a letter or an underscore and have letters, digits, spaces, dashes and underscores (at most 63)")
	}
	if b.Table == "" {
		return badRequest("table is required")
	}
	if err := b.check(); err != nil {
		return err
	}
	var id int64
	err := pgx.BeginFunc(r.Context(), s.d.Admin, func(tx pgx.Tx) error {
		var kind string
		err := tx.QueryRow(r.Context(), `SELECT c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relname = $2`, b.Schema, b.Table).Scan(&kind)
		if isNoRows(err) || err == nil && kind != "r" && kind != "p" {
			return notFound("Cannot find a table %s.%s", b.Schema, b.Table)
		} else if err != nil {
			return err
		}
		if err := b.writeTrigger(r.Context(), tx, false); err != nil {
			return err
		}
		return tx.QueryRow(r.Context(), `SELECT t.oid::int8 FROM pg_trigger t WHERE t.tgname = $1
			AND t.tgrelid = (SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $2 AND c.relname = $3)`,
			b.Name, b.Schema, b.Table).Scan(&id)
	})
	if err != nil {
		return err
	}
	return s.oneWebhook(w, r.Context(), id, http.StatusCreated)
}

// webhookEvents renders events for CREATE TRIGGER: INSERT, UPDATE, DELETE.
func webhookEvents(events []string) (string, error) {
	if len(events) == 0 {
		return "", badRequest("events must name at least one of INSERT, UPDATE and DELETE")
	}
	seen := map[string]bool{}
	var out []string
	for _, e := range events {
		e = strings.ToUpper(e)
		if e != "INSERT" && e != "UPDATE" && e != "DELETE" {
			return "", badRequest("events must be INSERT, UPDATE or DELETE, not %q", e)
		}
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return strings.Join(out, " OR "), nil
}

func (s *Service) oneWebhook(w http.ResponseWriter, ctx context.Context, id int64, status int) error {
	var out json.RawMessage
	err := s.d.Admin.QueryRow(ctx, `SELECT to_json(b) FROM (`+webhooksSQL+`) b WHERE b.id = $1`, id).Scan(&out)
	if isNoRows(err) {
		return notFound("Cannot find a webhook with ID %d", id)
	} else if err != nil {
		return err
	}
	writeRaw(w, status, out)
	return nil
}

// webhookRef is a webhook's trigger, read by id.
type webhookRef struct{ Name, Schema, Table string }

func (s *Service) webhookByID(r *http.Request, tx pgx.Tx) (int64, webhookRef, error) {
	var h webhookRef
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return 0, h, notFound("Cannot find a webhook with ID %s", r.PathValue("id"))
	}
	err = tx.QueryRow(r.Context(), `SELECT b.name, b.schema, b.table FROM (`+webhooksSQL+`) b WHERE b.id = $1`, id).Scan(&h.Name, &h.Schema, &h.Table)
	if isNoRows(err) {
		return 0, h, notFound("Cannot find a webhook with ID %d", id)
	}
	if err == nil {
		noteAudit(r.Context(), "webhook "+h.Name+" on "+h.Schema+"."+h.Table, nil)
	}
	return id, h, err
}

// updateWebhook edits a webhook in place: any of {enabled, url, events,
// method, headers, params, timeout_ms}; what is left out stays. The name
// and table stay (the delivery log is keyed by them).
func (s *Service) updateWebhook(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Enabled   *bool              `json:"enabled"`
		URL       *string            `json:"url"`
		Events    []string           `json:"events"`
		Method    *string            `json:"method"`
		Headers   *map[string]string `json:"headers"`
		Params    *map[string]string `json:"params"`
		TimeoutMS *int               `json:"timeout_ms"`
	}
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	noteAudit(r.Context(), "webhook "+r.PathValue("id"), nil)
	edits := b.URL != nil || b.Events != nil || b.Method != nil || b.Headers != nil || b.Params != nil || b.TimeoutMS != nil
	if b.Enabled == nil && !edits {
		return badRequest("nothing to change: send enabled, url, events, method, headers, params or timeout_ms")
	}
	var id int64
	err := pgx.BeginFunc(r.Context(), s.d.Admin, func(tx pgx.Tx) error {
		var h webhookRef
		var err error
		if id, h, err = s.webhookByID(r, tx); err != nil {
			return err
		}
		if edits {
			var d webhookDef
			var enabled bool
			if err := tx.QueryRow(r.Context(), `SELECT b.name, b.schema, b.table, b.events, b.url, b.method,
				(SELECT coalesce(jsonb_object_agg(k, v), '{}') FROM jsonb_each_text(b.headers) x(k, v)),
				(SELECT coalesce(jsonb_object_agg(k, v), '{}') FROM jsonb_each_text(b.params) x(k, v)), b.timeout_ms, b.enabled
				FROM (`+webhooksSQL+`) b WHERE b.id = $1`, id).Scan(&d.Name, &d.Schema, &d.Table, &d.Events, &d.URL, &d.Method,
				&d.Headers, &d.Params, &d.TimeoutMS, &enabled); err != nil {
				return err
			}
			if b.URL != nil {
				d.URL = *b.URL
			}
			if b.Events != nil {
				d.Events = b.Events
			}
			if b.Method != nil {
				d.Method = *b.Method
			}
			if b.Headers != nil {
				d.Headers = *b.Headers
			}
			if b.Params != nil {
				d.Params = *b.Params
			}
			if b.TimeoutMS != nil {
				d.TimeoutMS = b.TimeoutMS
			}
			if err := d.check(); err != nil {
				return err
			}
			if err := d.writeTrigger(r.Context(), tx, true); err != nil {
				return err
			}
			if b.Enabled == nil {
				// A replaced trigger fires again; a paused one stays paused.
				b.Enabled = &enabled
			}
		}
		if b.Enabled != nil {
			verb := map[bool]string{true: " ENABLE TRIGGER ", false: " DISABLE TRIGGER "}[*b.Enabled]
			return execOne(r.Context(), tx, "ALTER TABLE "+ident(h.Schema, h.Table)+verb+ident(h.Name))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.oneWebhook(w, r.Context(), id, http.StatusOK)
}

// deleteWebhook drops a webhook's trigger; its delivery log stays.
func (s *Service) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	noteAudit(r.Context(), "webhook "+r.PathValue("id"), nil)
	var before json.RawMessage
	err := pgx.BeginFunc(r.Context(), s.d.Admin, func(tx pgx.Tx) error {
		id, h, err := s.webhookByID(r, tx)
		if err != nil {
			return err
		}
		if err := tx.QueryRow(r.Context(), `SELECT to_json(b) FROM (`+webhooksSQL+`) b WHERE b.id = $1`, id).Scan(&before); err != nil {
			return err
		}
		return execOne(r.Context(), tx, "DROP TRIGGER "+ident(h.Name)+" ON "+ident(h.Schema, h.Table))
	})
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, before)
	return nil
}

// webhookDeliveries lists recent firings, newest first, each with its
// request's state: pending (queued or being sent), or the answer's status,
// time-out or error. ?id= (a webhook), ?limit= (50, at most 500).
func (s *Service) webhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	limit, err := queryLimit(r, 50, 500)
	if err != nil {
		return err
	}
	var hook *int64
	if v := r.URL.Query().Get("id"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return badRequest("id must be a webhook's id")
		}
		hook = &n
	}
	var out json.RawMessage
	err = s.d.Admin.QueryRow(r.Context(), `SELECT coalesce(json_agg(x ORDER BY x.id DESC), '[]') FROM (
	  SELECT h.id, h.hook_name, h.hook_table_id AS table_id, n.nspname AS schema, c.relname AS table, h.created_at, h.request_id,
	    CASE WHEN q.id IS NOT NULL THEN 'pending'
	      WHEN res.id IS NULL THEN 'unknown'
	      WHEN res.timed_out THEN 'timed_out'
	      WHEN res.error_msg IS NOT NULL THEN 'error'
	      WHEN res.status_code BETWEEN 200 AND 299 THEN 'delivered'
	      ELSE 'failed' END AS state,
	    res.status_code, res.timed_out, res.error_msg, res.created AS answered_at, left(res.content, 2048) AS content,
	    q.method, q.url
	  FROM supabase_functions.hooks h
	  LEFT JOIN pg_class c ON c.oid = h.hook_table_id::oid LEFT JOIN pg_namespace n ON n.oid = c.relnamespace
	  LEFT JOIN net.http_request_queue q ON q.id = h.request_id
	  LEFT JOIN LATERAL (SELECT * FROM net._http_response r WHERE r.id = h.request_id ORDER BY r.created DESC LIMIT 1) res ON true
	  WHERE $1::int8 IS NULL OR (h.hook_table_id::oid, h.hook_name) = (SELECT tgrelid, tgname::text FROM pg_trigger WHERE oid = $1::oid)
	  ORDER BY h.id DESC LIMIT $2) x`, hook, limit).Scan(&out)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}
