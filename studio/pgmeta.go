package studio

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/basaltdev/basalt/internal/httpx"
)

// The /pg/ endpoints answer in postgres-meta's shapes (the names and types
// of its JSON fields, its query parameters, its {"error": ...} bodies), so
// tools written against Supabase's /pg/ work here. The SQL is Basalt's own.
// Besides postgres-meta's parameters the lists take table_id, which the
// table editor uses to read one table's columns, policies, indexes and
// triggers without the whole catalog.

// systemSchemas are left out unless include_system_schemas=true.
var systemSchemas = []string{"information_schema", "pg_catalog", "pg_toast"}

// listFilter is a list endpoint's query parameters.
type listFilter struct {
	included, excluded []string
	tableID            *int64
	limit, offset      *int64
}

// parseListFilter reads include_system_schemas, included_schemas,
// excluded_schemas (comma-separated), table_id, limit and offset.
func parseListFilter(r *http.Request) (listFilter, error) {
	q := r.URL.Query()
	var f listFilter
	split := func(v string) []string {
		var out []string
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	f.included = split(q.Get("included_schemas"))
	f.excluded = split(q.Get("excluded_schemas"))
	if q.Get("include_system_schemas") != "true" {
		f.excluded = append(append([]string{}, systemSchemas...), f.excluded...)
	}
	for name, dst := range map[string]**int64{"table_id": &f.tableID, "limit": &f.limit, "offset": &f.offset} {
		if v := q.Get(name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return f, badRequest("querystring/%s must be integer", name)
			}
			*dst = &n
		}
	}
	return f, nil
}

// listJSON runs base (a query whose rows have a "schema" column, and a
// "table_id" one when byTable) filtered by the request's listFilter, and
// writes its rows, without the helper columns named in drop, as a JSON
// array built by PostgreSQL.
func (s *Service) listJSON(w http.ResponseWriter, r *http.Request, base, order string, byTable bool, drop ...string) error {
	f, err := parseListFilter(r)
	if err != nil {
		return err
	}
	tableCond := "($3::int8 IS NULL OR true)"
	if byTable {
		tableCond = "($3::int8 IS NULL OR b.table_id = $3)"
	}
	q := `SELECT coalesce(json_agg(to_jsonb(x) - $6::text[]), '[]') FROM (SELECT * FROM (` + base + `) b
	WHERE (cardinality($1::text[]) = 0 OR b.schema = ANY($1))
	  AND (cardinality($1::text[]) > 0 OR NOT b.schema = ANY($2::text[]))
	  AND ` + tableCond + `
	ORDER BY ` + order + ` LIMIT $4 OFFSET coalesce($5, 0)) x`
	var out json.RawMessage
	if err := s.d.Admin.QueryRow(r.Context(), q, nonNil(f.included), nonNil(f.excluded), f.tableID, f.limit, f.offset, nonNil(drop)).Scan(&out); err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// writeRaw writes a JSON document PostgreSQL built.
func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// oneJSON writes the one row of base (filtered on its id column) as an
// object, or postgres-meta's 404 when there is none.
func (s *Service) oneJSON(w http.ResponseWriter, r *http.Request, base, what string) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return notFound("Cannot find %s with ID %s", what, r.PathValue("id"))
	}
	var out json.RawMessage
	err = s.d.Admin.QueryRow(r.Context(), `SELECT to_json(b) FROM (`+base+`) b WHERE b.id = $1`, id).Scan(&out)
	if err != nil {
		if isNoRows(err) {
			return notFound("Cannot find %s with ID %d", what, id)
		}
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

const schemasSQL = `SELECT n.oid::int8 AS id, n.nspname AS name, r.rolname AS owner
FROM pg_namespace n JOIN pg_roles r ON r.oid = n.nspowner
WHERE n.nspname NOT LIKE 'pg\_temp\_%' AND n.nspname NOT LIKE 'pg\_toast\_temp\_%'
  AND (pg_has_role(n.nspowner, 'USAGE') OR has_schema_privilege(n.oid, 'CREATE, USAGE'))`

func (s *Service) pgSchemas(w http.ResponseWriter, r *http.Request) error {
	base := `SELECT id, name, owner, name AS schema FROM (` + schemasSQL + `) s`
	if r.URL.Query().Get("include_system_schemas") != "true" {
		base += ` WHERE name NOT LIKE 'pg\_%'`
	}
	return s.listJSON(w, r, base, "b.name", false, "schema")
}

// columnsSQL describes every column of tables, views, materialized views and
// foreign tables the admin role may see, in postgres-meta's shape.
const columnsSQL = `SELECT
  c.oid::int8 AS table_id, n.nspname AS schema, c.relname AS table,
  c.oid::text || '.' || a.attnum AS id, a.attnum AS ordinal_position, a.attname AS name,
  CASE WHEN a.atthasdef THEN pg_get_expr(d.adbin, d.adrelid) END AS default_value,
  CASE
    WHEN coalesce(bt.typelem, t.typelem) <> 0 AND coalesce(bt.typlen, t.typlen) = -1 THEN 'ARRAY'
    WHEN tn.nspname = 'pg_catalog' OR btn.nspname = 'pg_catalog' THEN format_type(coalesce(bt.oid, t.oid), NULL)
    ELSE 'USER-DEFINED'
  END AS data_type,
  coalesce(bt.typname, t.typname)::text AS format,
  a.attidentity IN ('a', 'd') AS is_identity,
  CASE a.attidentity WHEN 'a' THEN 'ALWAYS' WHEN 'd' THEN 'BY DEFAULT' END AS identity_generation,
  a.attgenerated = 's' AS is_generated,
  NOT (a.attnotnull OR (t.typtype = 'd' AND t.typnotnull)) AS is_nullable,
  (c.relkind IN ('r', 'p') OR (c.relkind IN ('v', 'f') AND pg_column_is_updatable(c.oid, a.attnum, false))) AS is_updatable,
  EXISTS (SELECT 1 FROM pg_constraint u WHERE u.conrelid = c.oid AND u.contype = 'u' AND u.conkey = ARRAY[a.attnum]) AS is_unique,
  (SELECT substring(pg_get_constraintdef(k.oid, true) FROM '^CHECK \((.*)\)$') FROM pg_constraint k
    WHERE k.conrelid = c.oid AND k.contype = 'c' AND k.conkey = ARRAY[a.attnum] ORDER BY k.oid LIMIT 1) AS "check",
  array_to_json(ARRAY(SELECT e.enumlabel FROM pg_enum e
    WHERE e.enumtypid IN (coalesce(bt.oid, t.oid), coalesce(bt.typelem, t.typelem)) ORDER BY e.enumsortorder)) AS enums,
  col_description(c.oid, a.attnum) AS comment
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_type t ON t.oid = a.atttypid
JOIN pg_namespace tn ON tn.oid = t.typnamespace
LEFT JOIN pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype
LEFT JOIN pg_namespace btn ON btn.oid = bt.typnamespace
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'v', 'm', 'f', 'p')
  AND NOT pg_is_other_temp_schema(n.oid)
  AND (pg_has_role(c.relowner, 'USAGE') OR has_column_privilege(c.oid, a.attnum, 'SELECT, INSERT, UPDATE, REFERENCES'))`

func (s *Service) pgColumns(w http.ResponseWriter, r *http.Request) error {
	return s.listJSON(w, r, columnsSQL, "b.table_id, b.ordinal_position", true)
}

// tablesSQL is postgres-meta's table object; the columns are added when
// include_columns=true.
const tablesSQL = `SELECT
  c.oid::int8 AS id, n.nspname AS schema, c.relname AS name,
  c.relrowsecurity AS rls_enabled, c.relforcerowsecurity AS rls_forced,
  CASE c.relreplident WHEN 'd' THEN 'DEFAULT' WHEN 'i' THEN 'INDEX' WHEN 'f' THEN 'FULL' ELSE 'NOTHING' END AS replica_identity,
  pg_total_relation_size(c.oid)::int8 AS bytes, pg_size_pretty(pg_total_relation_size(c.oid)) AS size,
  pg_stat_get_live_tuples(c.oid) AS live_rows_estimate, pg_stat_get_dead_tuples(c.oid) AS dead_rows_estimate,
  obj_description(c.oid, 'pg_class') AS comment,
  coalesce((SELECT json_agg(json_build_object('table_id', c.oid::int8, 'schema', n.nspname, 'table_name', c.relname, 'name', a.attname)
      ORDER BY array_position(i.indkey::int2[], a.attnum))
    FROM pg_index i JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY (i.indkey)
    WHERE i.indrelid = c.oid AND i.indisprimary), '[]') AS primary_keys,
  coalesce((SELECT json_agg(json_build_object('id', k.oid::int8, 'constraint_name', k.conname,
      'source_schema', sn.nspname, 'source_table_name', sc.relname, 'source_column_name', sa.attname,
      'target_table_schema', tn.nspname, 'target_table_name', tc.relname, 'target_column_name', ta.attname)
      ORDER BY k.conname, ord)
    FROM pg_constraint k
    CROSS JOIN LATERAL unnest(k.conkey, k.confkey) WITH ORDINALITY AS u(src, dst, ord)
    JOIN pg_class sc ON sc.oid = k.conrelid JOIN pg_namespace sn ON sn.oid = sc.relnamespace
    JOIN pg_attribute sa ON sa.attrelid = k.conrelid AND sa.attnum = u.src
    JOIN pg_class tc ON tc.oid = k.confrelid JOIN pg_namespace tn ON tn.oid = tc.relnamespace
    JOIN pg_attribute ta ON ta.attrelid = k.confrelid AND ta.attnum = u.dst
    WHERE k.contype = 'f' AND (k.conrelid = c.oid OR k.confrelid = c.oid)), '[]') AS relationships
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND NOT pg_is_other_temp_schema(n.oid)
  AND (pg_has_role(c.relowner, 'USAGE')
    OR has_table_privilege(c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
    OR has_any_column_privilege(c.oid, 'SELECT, INSERT, UPDATE, REFERENCES'))`

// tablesWithColumns adds each table's columns.
const tablesWithColumns = `SELECT t.*, coalesce((SELECT json_agg(col ORDER BY col.ordinal_position)
  FROM (` + columnsSQL + `) col WHERE col.table_id = t.id), '[]') AS columns FROM (` + tablesSQL + `) t`

func (s *Service) pgTables(w http.ResponseWriter, r *http.Request) error {
	base := tablesSQL
	if r.URL.Query().Get("include_columns") == "true" {
		base = tablesWithColumns
	}
	return s.listJSON(w, r, `SELECT t.*, t.id AS table_id FROM (`+base+`) t`, "b.schema, b.name", true, "table_id")
}

func (s *Service) pgTable(w http.ResponseWriter, r *http.Request) error {
	return s.oneJSON(w, r, tablesWithColumns, "a table")
}

const policiesSQL = `SELECT
  p.oid::int8 AS id, n.nspname AS schema, c.relname AS table, c.oid::int8 AS table_id, p.polname AS name,
  CASE WHEN p.polpermissive THEN 'PERMISSIVE' ELSE 'RESTRICTIVE' END AS action,
  CASE WHEN p.polroles = '{0}'::oid[] THEN json_build_array('public')
    ELSE array_to_json(ARRAY(SELECT rolname FROM pg_roles WHERE oid = ANY (p.polroles) ORDER BY rolname)) END AS roles,
  CASE p.polcmd WHEN 'r' THEN 'SELECT' WHEN 'a' THEN 'INSERT' WHEN 'w' THEN 'UPDATE' WHEN 'd' THEN 'DELETE' WHEN '*' THEN 'ALL' END AS command,
  pg_get_expr(p.polqual, p.polrelid) AS definition,
  pg_get_expr(p.polwithcheck, p.polrelid) AS "check"
FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid JOIN pg_namespace n ON n.oid = c.relnamespace`

func (s *Service) pgPolicies(w http.ResponseWriter, r *http.Request) error {
	return s.listJSON(w, r, policiesSQL, "b.schema, b.table, b.name", true)
}

func (s *Service) pgPolicy(w http.ResponseWriter, r *http.Request) error {
	return s.oneJSON(w, r, policiesSQL, "a policy")
}

func (s *Service) pgExtensions(w http.ResponseWriter, r *http.Request) error {
	f, err := parseListFilter(r)
	if err != nil {
		return err
	}
	// Extensions are listed whatever their schema, as postgres-meta does.
	q := `SELECT coalesce(json_agg(x), '[]') FROM (
	  SELECT e.name, n.nspname AS schema, e.default_version, x.extversion AS installed_version, e.comment
	  FROM pg_available_extensions() e(name, default_version, comment)
	  LEFT JOIN pg_extension x ON x.extname = e.name LEFT JOIN pg_namespace n ON n.oid = x.extnamespace
	  ORDER BY e.name LIMIT $1 OFFSET coalesce($2, 0)) x`
	var out json.RawMessage
	if err := s.d.Admin.QueryRow(r.Context(), q, f.limit, f.offset).Scan(&out); err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

const indexesSQL = `SELECT
  i.indexrelid::int8 AS id, i.indrelid::int8 AS table_id, n.nspname AS schema,
  i.indnatts AS number_of_attributes, i.indnkeyatts AS number_of_key_attributes,
  i.indisunique AS is_unique, i.indisprimary AS is_primary, i.indisexclusion AS is_exclusion,
  i.indimmediate AS is_immediate, i.indisclustered AS is_clustered, i.indisvalid AS is_valid,
  i.indcheckxmin AS check_xmin, i.indisready AS is_ready, i.indislive AS is_live,
  i.indisreplident AS is_replica_identity,
  i.indkey::int2[] AS key_attributes, i.indcollation::oid[]::int8[] AS collation, i.indclass::oid[]::int8[] AS class,
  i.indoption::int2[] AS options, pg_get_expr(i.indpred, i.indrelid) AS index_predicate,
  obj_description(i.indexrelid, 'pg_class') AS comment, pg_get_indexdef(i.indexrelid) AS index_definition,
  am.amname AS access_method,
  coalesce((SELECT json_agg(json_build_object('attribute_number', a.attnum, 'attribute_name', a.attname,
      'data_type', format_type(a.atttypid, a.atttypmod)) ORDER BY a.attnum)
    FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)), '[]') AS index_attributes
FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_namespace n ON n.oid = ic.relnamespace
JOIN pg_am am ON am.oid = ic.relam`

func (s *Service) pgIndexes(w http.ResponseWriter, r *http.Request) error {
	return s.listJSON(w, r, indexesSQL, "b.schema, b.id", true)
}

const triggersSQL = `SELECT
  t.oid::int8 AS id, t.tgrelid::int8 AS table_id,
  CASE t.tgenabled WHEN 'D' THEN 'DISABLED' WHEN 'O' THEN 'ORIGIN' WHEN 'R' THEN 'REPLICA' WHEN 'A' THEN 'ALWAYS' END AS enabled_mode,
  (string_to_array(encode(t.tgargs, 'escape'), '\000'))[:t.tgnargs] AS function_args,
  t.tgname AS name, c.relname AS table, n.nspname AS schema,
  substring(pg_get_triggerdef(t.oid) FROM 'WHEN \((.*)\) EXECUTE') AS condition,
  CASE WHEN t.tgtype & 1 = 1 THEN 'ROW' ELSE 'STATEMENT' END AS orientation,
  CASE WHEN t.tgtype & 2 = 2 THEN 'BEFORE' WHEN t.tgtype & 64 = 64 THEN 'INSTEAD OF' ELSE 'AFTER' END AS activation,
  array_remove(ARRAY[CASE WHEN t.tgtype & 4 = 4 THEN 'INSERT' END, CASE WHEN t.tgtype & 8 = 8 THEN 'DELETE' END,
    CASE WHEN t.tgtype & 16 = 16 THEN 'UPDATE' END, CASE WHEN t.tgtype & 32 = 32 THEN 'TRUNCATE' END], NULL) AS events,
  p.proname AS function_name, pn.nspname AS function_schema
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_namespace pn ON pn.oid = p.pronamespace
WHERE NOT t.tgisinternal`

func (s *Service) pgTriggers(w http.ResponseWriter, r *http.Request) error {
	return s.listJSON(w, r, triggersSQL, "b.schema, b.table, b.name", true)
}

const typesSQL = `SELECT
  t.oid::int8 AS id, t.typname AS name, n.nspname AS schema, format_type(t.oid, NULL) AS format,
  coalesce((SELECT json_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid), '[]') AS enums,
  coalesce((SELECT json_agg(json_build_object('name', a.attname, 'type_id', a.atttypid::int8) ORDER BY a.attnum)
    FROM pg_attribute a WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped), '[]') AS attributes,
  obj_description(t.oid, 'pg_type') AS comment,
  nullif(t.typrelid::int8, 0) AS type_relation_id
FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
WHERE (t.typrelid = 0 OR (SELECT c.relkind = 'c' FROM pg_class c WHERE c.oid = t.typrelid))
  AND NOT EXISTS (SELECT 1 FROM pg_type el WHERE el.oid = t.typelem AND el.typarray = t.oid)`

func (s *Service) pgTypes(w http.ResponseWriter, r *http.Request) error {
	return s.listJSON(w, r, typesSQL, "b.schema, b.name", false)
}

func (s *Service) pgRoles(w http.ResponseWriter, r *http.Request) error {
	q := `SELECT coalesce(json_agg(x ORDER BY x.name), '[]') FROM (` + roleSQL + ` WHERE ($1 OR NOT starts_with(rolname, 'pg_'))) x`
	var out json.RawMessage
	if err := s.d.Admin.QueryRow(r.Context(), q, r.URL.Query().Get("include_default_roles") == "true").Scan(&out); err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

// okJSON writes v with status 200.
func okJSON(w http.ResponseWriter, v any) error {
	httpx.WriteJSON(w, http.StatusOK, v)
	return nil
}
