package studio

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/lazy"
	"github.com/basaltdev/basalt/internal/migrate"
)

// The Database screen: migrations applied and pending (what `basalt migrate
// status` prints), roles, extensions (enable and disable), functions,
// triggers, publications and replication slots. Functions, publications
// and the extension writes take postgres-meta's shapes; migrations and
// slots have none there and are Studio's own.

// functionsSQL is postgres-meta's function object (the fields its Studio
// reads), for plain functions and procedures, not aggregates.
const functionsSQL = `SELECT
  p.oid::int8 AS id, n.nspname AS schema, p.proname AS name, l.lanname AS language,
  CASE WHEN l.lanname = 'internal' THEN '' ELSE p.prosrc END AS definition,
  CASE WHEN p.prokind IN ('f', 'p') THEN pg_get_functiondef(p.oid) END AS complete_statement,
  pg_get_function_arguments(p.oid) AS argument_types,
  pg_get_function_identity_arguments(p.oid) AS identity_argument_types,
  p.prorettype::int8 AS return_type_id,
  pg_get_function_result(p.oid) AS return_type,
  nullif(rt.typrelid::int8, 0) AS return_type_relation_id,
  p.proretset AS is_set_returning_function,
  CASE p.provolatile WHEN 'i' THEN 'IMMUTABLE' WHEN 's' THEN 'STABLE' ELSE 'VOLATILE' END AS behavior,
  p.prosecdef AS security_definer,
  CASE WHEN p.proconfig IS NULL THEN NULL ELSE
    (SELECT json_object_agg(split_part(c, '=', 1), substr(c, strpos(c, '=') + 1)) FROM unnest(p.proconfig) c) END AS config_params,
  CASE p.prokind WHEN 'p' THEN 'procedure' ELSE 'function' END AS kind
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
JOIN pg_type rt ON rt.oid = p.prorettype
WHERE p.prokind IN ('f', 'p')
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')`

func (s *Service) pgFunctions(w http.ResponseWriter, r *http.Request) error {
	return s.listJSON(w, r, functionsSQL, "b.schema, b.name, b.id", false)
}

// publicationsSQL is postgres-meta's publication object: tables is null
// for a publication FOR ALL TABLES.
const publicationsSQL = `SELECT
  p.oid::int8 AS id, p.pubname AS name, r.rolname AS owner,
  p.pubinsert AS publish_insert, p.pubupdate AS publish_update, p.pubdelete AS publish_delete,
  p.pubtruncate AS publish_truncate,
  CASE WHEN p.puballtables THEN NULL ELSE coalesce((SELECT json_agg(json_build_object('id', c.oid::int8, 'name', c.relname, 'schema', n.nspname)
      ORDER BY n.nspname, c.relname)
    FROM pg_publication_rel pr JOIN pg_class c ON c.oid = pr.prrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE pr.prpubid = p.oid), '[]') END AS tables
FROM pg_publication p JOIN pg_roles r ON r.oid = p.pubowner`

func (s *Service) pgPublications(w http.ResponseWriter, r *http.Request) error {
	var out json.RawMessage
	q := `SELECT coalesce(json_agg(b ORDER BY b.name), '[]') FROM (` + publicationsSQL + `) b`
	if err := s.d.Admin.QueryRow(r.Context(), q).Scan(&out); err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

// extensionSQL is one extension as GET /pg/extensions lists it.
const extensionSQL = `SELECT e.name, n.nspname AS schema, e.default_version, x.extversion AS installed_version, e.comment
FROM pg_available_extensions() e(name, default_version, comment)
LEFT JOIN pg_extension x ON x.extname = e.name LEFT JOIN pg_namespace n ON n.oid = x.extnamespace
WHERE e.name = $1`

func (s *Service) extensionJSON(r *http.Request, db pgx.Tx, name string) (json.RawMessage, error) {
	var out json.RawMessage
	err := db.QueryRow(r.Context(), `SELECT to_json(b) FROM (`+extensionSQL+`) b`, name).Scan(&out)
	if isNoRows(err) {
		return nil, notFound("Cannot find an extension named %s", name)
	}
	return out, err
}

// pgCreateExtension is postgres-meta's POST /extensions: {name, schema?,
// version?, cascade?}, answered with the extension.
func (s *Service) pgCreateExtension(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Name    string  `json:"name"`
		Schema  *string `json:"schema"`
		Version *string `json:"version"`
		Cascade bool    `json:"cascade"`
	}
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	if b.Name == "" {
		return badRequest("name is required")
	}
	noteAudit(r.Context(), "extension "+b.Name, nil)
	sql := "CREATE EXTENSION " + ident(b.Name)
	if b.Schema != nil && *b.Schema != "" {
		sql += " SCHEMA " + ident(*b.Schema)
	}
	if b.Version != nil && *b.Version != "" {
		sql += " VERSION " + ident(*b.Version)
	}
	if b.Cascade {
		sql += " CASCADE"
	}
	var out json.RawMessage
	err := pgx.BeginFunc(r.Context(), s.d.Admin, func(tx pgx.Tx) error {
		if _, err := s.extensionJSON(r, tx, b.Name); err != nil {
			return err
		}
		if err := execOne(r.Context(), tx, sql); err != nil {
			return err
		}
		var err error
		out, err = s.extensionJSON(r, tx, b.Name)
		return err
	})
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

// pgDropExtension is postgres-meta's DELETE /extensions/{name}
// (?cascade=true), answered with the extension as it was.
func (s *Service) pgDropExtension(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	noteAudit(r.Context(), "extension "+name, nil)
	sql := "DROP EXTENSION " + ident(name)
	if r.URL.Query().Get("cascade") == "true" {
		sql += " CASCADE"
	} else {
		sql += " RESTRICT"
	}
	var before json.RawMessage
	err := pgx.BeginFunc(r.Context(), s.d.Admin, func(tx pgx.Tx) error {
		var err error
		if before, err = s.extensionJSON(r, tx, name); err != nil {
			return err
		}
		var installed bool
		if err := tx.QueryRow(r.Context(), `SELECT EXISTS (SELECT FROM pg_extension WHERE extname = $1)`, name).Scan(&installed); err != nil {
			return err
		}
		if !installed {
			return badRequest("extension %s is not enabled", name)
		}
		return execOne(r.Context(), tx, sql)
	})
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, before)
	return nil
}

// migrationRow is one migration as `basalt migrate status` lists it.
type migrationRow struct {
	Source     string     `json:"source"`
	Name       string     `json:"name"`
	Version    string     `json:"version,omitempty"`
	Repeatable bool       `json:"repeatable"`
	Status     string     `json:"status"` // applied, pending, changed, edited, missing
	AppliedAt  *time.Time `json:"applied_at"`
	HasDown    bool       `json:"has_down"`
}

// migrations lists the migrations of the binary (platform) and of the
// project's SQL folder (app) against the database, as `basalt migrate
// status` does: applied, pending, edited after being applied, changed
// (a repeatable file, due again) or applied with its file gone.
func (s *Service) migrations(w http.ResponseWriter, r *http.Request) error {
	sts, err := migrate.StatusOf(r.Context(), s.d.Admin, s.d.Migrations...)
	if err != nil {
		return err
	}
	rows := make([]migrationRow, 0, len(sts))
	pending := 0
	for _, st := range sts {
		m := migrationRow{Source: st.Source, Name: st.Name, Version: st.Version, Repeatable: st.Repeatable, AppliedAt: st.AppliedAt, HasDown: st.DownName != ""}
		switch {
		case st.Missing:
			m.Status = "missing"
		case st.AppliedAt != nil && st.Changed && st.Repeatable:
			m.Status = "changed"
			pending++
		case st.AppliedAt != nil && st.Changed:
			m.Status = "edited"
		case st.AppliedAt != nil:
			m.Status = "applied"
		default:
			m.Status = "pending"
			pending++
		}
		rows = append(rows, m)
	}
	sources := make([]string, 0, len(s.d.Migrations))
	for _, src := range s.d.Migrations {
		sources = append(sources, src.Name)
	}
	return okJSON(w, map[string]any{"sources": sources, "pending": pending, "migrations": rows})
}

// replicationSlots lists the database's replication slots with how much
// WAL each holds back: a slot nobody reads keeps WAL until the disk fills.
func (s *Service) replicationSlots(w http.ResponseWriter, r *http.Request) error {
	var out json.RawMessage
	err := s.d.Admin.QueryRow(r.Context(), `SELECT coalesce(json_agg(x ORDER BY x.name), '[]') FROM (SELECT
	  slot_name AS name, plugin, slot_type AS type, database, temporary, active, active_pid,
	  restart_lsn::text, confirmed_flush_lsn::text, wal_status,
	  CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::int8 END AS retained_bytes,
	  CASE WHEN pg_is_in_recovery() OR confirmed_flush_lsn IS NULL THEN NULL
	    ELSE pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::int8 END AS lag_bytes
	FROM pg_replication_slots WHERE database IS NULL OR database = current_database()) x`).Scan(&out)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

// slotName is what a replication slot may be called.
var slotName = lazy.NewRegexp(`^[a-z0-9_]{1,63}$`)

// dropReplicationSlot drops an inactive slot (one being read is refused by
// PostgreSQL), freeing the WAL it held.
func (s *Service) dropReplicationSlot(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	noteAudit(r.Context(), "replication slot "+name, nil)
	if !slotName.MatchString(name) {
		return notFound("Cannot find a replication slot named %s", strconv.Quote(name))
	}
	var found bool
	if err := s.d.Admin.QueryRow(r.Context(), `SELECT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name = $1)`, name).Scan(&found); err != nil {
		return err
	}
	if !found {
		return notFound("Cannot find a replication slot named %s", name)
	}
	if _, err := s.d.Admin.Exec(r.Context(), `SELECT pg_drop_replication_slot($1)`, name); err != nil {
		return err
	}
	return okJSON(w, map[string]string{"name": name})
}

// databaseRoutes are the endpoints of the Database, Cron, Queues and
// Database Webhooks screens.
func (s *Service) databaseRoutes() []route {
	read, write := readRoute, writeRoute
	return []route{
		// Database (postgres-meta's shapes first).
		read("GET", "/pg/functions", s.pgFunctions),
		read("GET", "/pg/publications", s.pgPublications),
		write("POST", "/pg/publications", "publication.create", s.pgCreatePublication),
		write("PATCH", "/pg/publications/{id}", "publication.update", s.pgUpdatePublication),
		write("DELETE", "/pg/publications/{id}", "publication.drop", s.pgDropPublication),
		write("POST", "/pg/roles", "role.create", s.pgCreateRole),
		write("PATCH", "/pg/roles/{id}", "role.update", s.pgUpdateRole),
		write("DELETE", "/pg/roles/{id}", "role.drop", s.pgDropRole),
		write("POST", "/pg/extensions", "extension.enable", s.pgCreateExtension),
		write("DELETE", "/pg/extensions/{name}", "extension.disable", s.pgDropExtension),
		read("GET", "/api/database/migrations", s.migrations),
		read("GET", "/api/database/replication-slots", s.replicationSlots),
		write("DELETE", "/api/database/replication-slots/{name}", "replication_slot.drop", s.dropReplicationSlot),
		read("GET", "/api/database/backups", s.listBackups),
		write("POST", "/api/database/backups", "backup.run", s.runBackup),
		write("POST", "/api/database/backups/{name}/restore", "backup.restore", s.restoreBackup),
		// Cron.
		read("GET", "/api/cron", s.cronJobs),
		write("POST", "/api/cron/jobs", "cron.schedule", s.createCronJob),
		write("PATCH", "/api/cron/jobs/{id}", "cron.alter", s.updateCronJob),
		write("DELETE", "/api/cron/jobs/{id}", "cron.unschedule", s.deleteCronJob),
		read("GET", "/api/cron/jobs/{id}/runs", s.cronRuns),
		// Queues.
		read("GET", "/api/queues", s.queueList),
		write("POST", "/api/queues", "queue.create", s.createQueue),
		write("DELETE", "/api/queues/{name}", "queue.drop", s.dropQueue),
		write("POST", "/api/queues/{name}/purge", "queue.purge", s.purgeQueue),
		read("GET", "/api/queues/{name}/messages", s.queueMessages),
		write("POST", "/api/queues/{name}/messages", "queue.send", s.sendMessage),
		write("POST", "/api/queues/{name}/messages/{id}/archive", "queue.archive", s.messageAction("pgmq.archive")),
		write("DELETE", "/api/queues/{name}/messages/{id}", "queue.delete", s.messageAction("pgmq.delete")),
		// Database Webhooks.
		read("GET", "/api/webhooks", s.webhookList),
		write("POST", "/api/webhooks", "webhook.create", s.createWebhook),
		write("PATCH", "/api/webhooks/{id}", "webhook.update", s.updateWebhook),
		write("DELETE", "/api/webhooks/{id}", "webhook.delete", s.deleteWebhook),
		read("GET", "/api/webhooks/deliveries", s.webhookDeliveries),
	}
}
